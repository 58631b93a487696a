#include "metrics/rendered_families.hpp"

#include <stdexcept>

#include "metrics/exposition_text.hpp"

namespace nvmond {

std::string& RenderedFamilies::begin_family(std::string_view name, std::string_view help,
                                            prometheus::MetricType type) {
  if (open_) throw std::logic_error("RenderedFamilies: a family begun before the last one ended");
  open_ = true;
  Slice& f = families_.emplace_back();
  f.header = text_.size();
  append_family_header(text_, name, help, type);
  f.samples = text_.size();
  // The "# TYPE <name> <type>\n" line ends the header.
  const std::size_t type_line = text_.rfind("# TYPE ", f.samples - 1);
  f.name = type_line + 7;
  f.name_size = name.size();
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
