#include "report/html_page.hpp"

#include "report/markup.hpp"

namespace nvmond::report {

namespace {

// System fonts only; charts scale to the page width; print keeps a figure
// or a table on one page and drops the screen margins.
constexpr const char* kCss = R"(
:root { color-scheme: light; }
body { font-family: sans-serif; color: #222; background: #fff; margin: 0 auto; max-width: 1000px;
       padding: 16px 24px; line-height: 1.35; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; border-bottom: 2px solid #0072b2; padding-bottom: 2px; margin: 28px 0 10px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.subtitle { color: #555; margin: 0 0 12px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0; }
dl.facts dt { font-weight: bold; color: #444; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; }
caption { text-align: left; font-weight: bold; padding: 4px 0; }
th, td { border: 1px solid #bbb; padding: 3px 8px; }
th { background: #eef3f8; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.pass, .verdict.pass { color: #0a6b2d; font-weight: bold; }
td.fail, .verdict.fail { color: #b00020; font-weight: bold; }
.verdict { font-size: 16px; margin: 8px 0; }
p.note { color: #555; font-size: 13px; }
figure.chart-figure { margin: 12px 0 18px; }
figure.chart-figure svg { width: 100%; height: auto; display: block; }
figcaption { font-size: 12px; color: #555; margin-top: 2px; }
footer { margin-top: 32px; font-size: 12px; color: #777; }
@page { size: A4; margin: 12mm; }
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  h2 { break-after: avoid; }
  figure.chart-figure, table, dl.facts { break-inside: avoid; }
}
)";

}  // namespace

HtmlPage::HtmlPage(std::string title) : title_(std::move(title)) {}

void HtmlPage::heading(const std::string& title, const std::string& subtitle) {
  body_ += "<header>\n<h1>" + escape(title) + "</h1>\n<p class=\"subtitle\">" + escape(subtitle) + "</p>\n</header>\n";
}

void HtmlPage::section(const std::string& id, const std::string& title) {
  if (in_section_) body_ += "</section>\n";
  body_ += "<section id=\"" + escape(id) + "\">\n<h2>" + escape(title) + "</h2>\n";
  in_section_ = true;
}

void HtmlPage::subheading(const std::string& text) { body_ += "<h3>" + escape(text) + "</h3>\n"; }

void HtmlPage::paragraph(const std::string& text, const std::string& cls) {
  body_ += (cls.empty() ? "<p>" : "<p class=\"" + escape(cls) + "\">") + escape(text) + "</p>\n";
}

void HtmlPage::verdict(bool pass, const std::string& text) {
  body_ +=
      std::string("<p class=\"verdict ") + (pass ? "pass\">PASS" : "fail\">FAIL") + " — " + escape(text) + "</p>\n";
}

void HtmlPage::facts(const std::vector<std::pair<std::string, std::string>>& rows) {
  body_ += "<dl class=\"facts\">\n";
  for (const auto& [k, v] : rows) body_ += "<dt>" + escape(k) + "</dt><dd>" + escape(v) + "</dd>\n";
  body_ += "</dl>\n";
}

void HtmlPage::table(const Table& t) {
  body_ += t.id.empty() ? "<table>" : "<table id=\"" + escape(t.id) + "\">";
  if (!t.caption.empty()) body_ += "<caption>" + escape(t.caption) + "</caption>";
  body_ += "\n<thead><tr>";
  for (const auto& h : t.header) body_ += "<th>" + escape(h) + "</th>";
  body_ += "</tr></thead>\n<tbody>\n";
  for (const auto& row : t.rows) {
    body_ += "<tr>";
    for (const auto& c : row) {
      body_ += (c.cls.empty() ? "<td>" : "<td class=\"" + escape(c.cls) + "\">") + escape(c.text) + "</td>";
    }
    body_ += "</tr>\n";
  }
  body_ += "</tbody></table>\n";
}

void HtmlPage::chart(const Chart& c, const std::string& caption) {
  body_ += "<figure class=\"chart-figure\" id=\"fig-" + escape(c.id) + "\">\n" + render_svg(c) + "\n";
  if (!caption.empty()) body_ += "<figcaption>" + escape(caption) + "</figcaption>\n";
  body_ += "</figure>\n";
}

std::string HtmlPage::finish() {
  if (in_section_) body_ += "</section>\n";
  in_section_ = false;
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<meta name=\"generator\" content=\"nvmonctl\">\n<title>" +
         escape(title_) + "</title>\n<style>" + kCss + "</style>\n</head>\n<body>\n" + body_ + "</body>\n</html>\n";
}

}  // namespace nvmond::report
