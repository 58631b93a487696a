#pragma once
// One self-contained HTML page: inline CSS (screen and print), inline SVG
// charts, tables, no scripts and nothing fetched from anywhere. Every text
// argument is escaped here; callers pass plain strings.
#include <string>
#include <utility>
#include <vector>

#include "report/chart.hpp"

namespace nvmond::report {

struct Cell {
  std::string text;
  std::string cls;  // CSS class: "num", "pass", "fail", "" …
  Cell(std::string t, std::string c = "") : text(std::move(t)), cls(std::move(c)) {}  // NOLINT
  Cell(const char* t) : text(t) {}                                                    // NOLINT
};

struct Table {
  std::string id;
  std::string caption;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
};

class HtmlPage {
 public:
  explicit HtmlPage(std::string title);

  // The page's <h1> and a line under it.
  void heading(const std::string& title, const std::string& subtitle);
  void section(const std::string& id, const std::string& title);  // closes the previous one
  void subheading(const std::string& text);
  void paragraph(const std::string& text, const std::string& cls = "");
  // A verdict line: "PASS …" in green or "FAIL …" in red.
  void verdict(bool pass, const std::string& text);
  // Label/value pairs as a two-column definition grid.
  void facts(const std::vector<std::pair<std::string, std::string>>& rows);
  void table(const Table& t);
  // <figure id="fig-<chart.id>" class="chart-figure"> with the SVG and a caption.
  void chart(const Chart& c, const std::string& caption = "");

  std::string finish();

 private:
  std::string title_;
  std::string body_;
  bool in_section_ = false;
};

}  // namespace nvmond::report
