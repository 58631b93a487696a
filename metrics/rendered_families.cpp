#include "metrics/rendered_families.hpp"

#include <stdexcept>

#include "metrics/exposition_text.hpp"

namespace nvmond {

std::string RenderedFamilies::render_header(std::string_view name, std::string_view help, prometheus::MetricType type) {
  std::string header;
  append_family_header(header, name, help, type);
  return header;
}

std::string& RenderedFamilies::begin_family(std::string_view name, std::string_view help, prometheus::MetricType type) {
  return begin_family(render_header(name, help, type), name.size());
}

std::string& RenderedFamilies::begin_family(const std::string& header, std::size_t name_size) {
  if (open_) throw std::logic_error("RenderedFamilies: a family begun before the last one ended");
  open_ = true;
  Slice& f = families_.emplace_back();
  f.header = text_.size();
  text_ += header;
  f.samples = text_.size();
  // The header ends with the "# TYPE <name> <type>\n" line.
  f.name = f.header + header.rfind("# TYPE ") + 7;
  f.name_size = name_size;
  return text_;
}

void RenderedFamilies::end_family() {
  if (!open_) throw std::logic_error("RenderedFamilies: end_family() without begin_family()");
  open_ = false;
  Slice& f = families_.back();
  f.end = text_.size();
  if (f.end == f.samples) {
    text_.resize(f.header);
    families_.pop_back();
  }
}

void RenderedFamilies::append(const prometheus::MetricFamily& family) {
  std::string& out = begin_family(family.name, family.help, family.type);
  append_family_samples(out, family);
  end_family();
}

void RenderedFamilies::append(const RenderedFamilies& other) {
  if (open_ || other.open_) throw std::logic_error("RenderedFamilies: appending with a family still open");
  const std::size_t shift = text_.size();
  text_ += other.text_;
  families_.reserve(families_.size() + other.families_.size());
  for (Slice f : other.families_) {
    f.name += shift;
    f.header += shift;
    f.samples += shift;
    f.end += shift;
    families_.push_back(f);
  }
}

void RenderedFamilies::reserve(std::size_t text_bytes, std::size_t families) {
  text_.reserve(text_bytes);
  families_.reserve(families);
}

void RenderedFamilies::clear() {
  text_.clear();
  families_.clear();
  open_ = false;
}

}  // namespace nvmond
