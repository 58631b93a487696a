"""The reference pages match the code, both ways: every configuration key a
reader accepts is in docs/configuration.md and every metric family the code
declares is in docs/metrics.md; nothing either page documents is missing
from the code.

What the code declares is read from the sources by rule, not from a list:

- TOML keys: in each reader (a source that includes core/config_reader.hpp,
  itself or through its own header), the string literal given as the key to
  a TableReader getter (the getters are those TableReader declares with a
  `std::string_view key` parameter), to a helper that takes a TableReader
  and a key, or as the first member of a field table (`{"key", &Spec::member`).
- Web config (YAML) keys: in a source that includes yaml-cpp, the string
  literals a key is compared with (`key == "cert_file"`).
- Metric families: a literal `nvme_…`/`nvmond_…` name that starts a `Family`
  (`{"name", Family::gauge`) or is given to a prometheus-cpp builder
  (`.Name("name")`).

What a page documents: the backticked names in the first cell of its table
rows (`[section] key` counts the section's names and the key).

Every relative link of README.md and docs/ reaches a file, and its
#anchor a heading of that file (as GitHub names headings).
"""
import glob
import os
import re
import unittest

ROOT = os.environ.get("NVMOND_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
# Folders that hold no product source.
NOT_SOURCE = {"tests", "bench", "build", "docs", "grafana", "packaging", "systemd", "scripts", "examples"}
READER_HEADER = "core/config_reader.hpp"
IDENT = r"[a-z][a-z0-9_]*"


def product_sources(root=ROOT):
    """path relative to root -> text, for every C++ file of the product."""
    out = {}
    for entry in sorted(os.listdir(root)):
        if entry.startswith(".") or entry in NOT_SOURCE or entry.startswith("build"):
            continue
        folder = os.path.join(root, entry)
        if not os.path.isdir(folder):
            continue
        for path in glob.glob(os.path.join(folder, "**", "*.[ch]pp"), recursive=True):
            with open(path, encoding="utf-8") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


def includes(text):
    return re.findall(r'#include\s+"([^"]+)"', text)


def own_header(path):
    return os.path.splitext(path)[0] + ".hpp"


def reader_sources(sources):
    """Sources that read TOML tables: they include the reader's header, or
    their own header does."""
    def direct(path):
        return READER_HEADER in includes(sources.get(path, ""))
    return {p: t for p, t in sources.items()
            if not p.startswith("core/config_reader.") and (direct(p) or direct(own_header(p)))}


def getter_names(sources):
    """TableReader's methods that take a key."""
    text = sources[READER_HEADER]
    body = text[text.index("class TableReader"):]
    return set(re.findall(r"\b(\w+)\(std::string_view key\b", body))


def toml_keys_in_code(sources):
    getters = "|".join(sorted(getter_names(sources)))
    keys = {}
    for path, text in reader_sources(sources).items():
        helpers = set(re.findall(r"\b(\w+)\(TableReader&\s*\w+,\s*std::string_view\s+\w+", text))
        patterns = [r"\b(?:" + getters + r')\(\s*"(' + IDENT + r')"',
                    r'\{\s*"(' + IDENT + r')",\s*&\w+::']
        if helpers:
            patterns.append(r"\b(?:" + "|".join(sorted(helpers)) + r')\(\s*\w+\s*,\s*"(' + IDENT + r')"')
        for pattern in patterns:
            for key in re.findall(pattern, text):
                keys.setdefault(key, set()).add(path)
    return keys


def yaml_keys_in_code(sources):
    keys = {}
    for path, text in sources.items():
        if "#include <yaml-cpp/" not in text:
            continue
        for key in re.findall(r'\b(?:\w+\.)?key\s*==\s*"(' + IDENT + r')"|\bk\s*==\s*"(' + IDENT + r')"', text):
            keys.setdefault(key[0] or key[1], set()).add(path)
    return keys


def families_in_code(sources):
    name = r'"((?:nvme|nvmond)_[a-z0-9_]+)"'
    families = {}
    for path, text in sources.items():
        for pattern in (name + r"\s*,\s*Family::", r"\.Name\(\s*" + name + r"\s*\)"):
            for family in re.findall(pattern, text):
                families.setdefault(family, set()).add(path)
    return families


def first_cells(markdown):
    """The first cell of every table row that is neither a header nor a rule."""
    lines = markdown.splitlines()
    cells = []
    for i, line in enumerate(lines):
        if not line.startswith("|") or re.match(r"^\|[\s|:-]+\|$", line):
            continue
        if i + 1 < len(lines) and re.match(r"^\|[\s|:-]+\|$", lines[i + 1]):
            continue  # a header row
        cells.append(line.split("|")[1])
    return cells


def documented_names(markdown, name_pattern):
    names = set()
    for cell in first_cells(markdown):
        for span in re.findall(r"`([^`]+)`", cell):
            names.update(re.findall(name_pattern, span))
    return names


def tests_in_registry(sources):
    """The test names the definitions declare: each `.name = "wsat"` of a
    test's file, pts/tests/<family>.cpp (the registry finds those files)."""
    names = set()
    for path, text in sources.items():
        if re.fullmatch(r"pts/tests/\w+\.cpp", path):
            names.update(re.findall(r'\.name = "([a-z_]+)"', text))
    return names


def soak_test_list(markdown):
    """The test names the `[[soak]]` table's `test` row lists (its last cell)."""
    section = markdown[markdown.index("## Soak runs: `[[soak]]`"):]
    row = next(line for line in section.splitlines() if line.startswith("| `test` |"))
    return set(re.findall(r"`([a-z_]+)`", row.rstrip(" |").rsplit("|", 1)[1]))


def read_doc(name):
    with open(os.path.join(ROOT, "docs", name), encoding="utf-8") as f:
        return f.read()


class DocCoverageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sources = product_sources()

    def compare(self, in_code, documented, page):
        undocumented = sorted(f"{k} ({', '.join(sorted(w))})" for k, w in in_code.items() if k not in documented)
        self.assertEqual(undocumented, [], f"declared in the code but not in docs/{page}")
        stale = sorted(documented - set(in_code))
        self.assertEqual(stale, [], f"documented in docs/{page} but declared nowhere in the code")

    def test_every_config_key_is_documented_and_exists(self):
        in_code = toml_keys_in_code(self.sources)
        for key, where in yaml_keys_in_code(self.sources).items():
            in_code.setdefault(key, set()).update(where)
        # The rule must keep finding the readers: a refactor that hides every
        # key from it would otherwise pass.
        self.assertGreater(len(in_code), 80, sorted(in_code))
        for area in ("services/config.cpp", "sim/sim_drive_spec.cpp", "workloads/job_spec.cpp",
                     "schedule/soak_scheduler.cpp", "http/web_config.cpp"):
            self.assertTrue(any(area in w for w in in_code.values()), f"no key found in {area}")
        self.compare(in_code, documented_names(read_doc("configuration.md"), IDENT), "configuration.md")

    def test_the_soak_test_list_is_the_test_registry(self):
        in_code = tests_in_registry(self.sources)
        self.assertGreater(len(in_code), 10, sorted(in_code))
        listed = soak_test_list(read_doc("configuration.md"))
        self.assertEqual(sorted(in_code - listed), [], "tests missing from the [[soak]] test list")
        self.assertEqual(sorted(listed - in_code), [], "[[soak]] test list names tests the registry lacks")

    def test_every_metric_family_is_documented_and_exists(self):
        in_code = families_in_code(self.sources)
        self.assertGreater(len(in_code), 80, sorted(in_code))
        documented = documented_names(read_doc("metrics.md"), r"\b(?:nvme|nvmond)_[a-z0-9_]+")
        self.compare(in_code, documented, "metrics.md")


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces
    to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(markdown):
    body = re.sub(r"(?ms)^```.*?^```", "", markdown)
    return {anchor(h) for h in re.findall(r"^#+ (.+)$", body, re.M)}


def relative_links(markdown):
    body = re.sub(r"(?ms)^```.*?^```", "", markdown)
    return [l for l in re.findall(r"\]\(([^)\s]+)\)", body) if not re.match(r"^[a-z]+:", l)]


class LinkTest(unittest.TestCase):
    def test_relative_links_reach_a_file_and_heading(self):
        pages = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
        broken = []
        for page in pages:
            with open(page, encoding="utf-8") as f:
                text = f.read()
            for link in relative_links(text):
                target, _, fragment = link.partition("#")
                path = os.path.normpath(os.path.join(os.path.dirname(page), target)) if target else page
                if not os.path.exists(path):
                    broken.append(f"{os.path.relpath(page, ROOT)}: {link} (no such file)")
                elif fragment:
                    with open(path, encoding="utf-8") as f:
                        if fragment not in anchors(f.read()):
                            broken.append(f"{os.path.relpath(page, ROOT)}: {link} (no such heading)")
        self.assertEqual(broken, [])


class RulesTest(unittest.TestCase):
    """The extraction rules on small sources of each shape."""

    def test_toml_rule_finds_getters_helpers_and_field_tables(self):
        sources = {
            READER_HEADER: "class TableReader {\n std::optional<bool> boolean(std::string_view key);\n};",
            "x/reader.hpp": '#include "core/config_reader.hpp"',
            "x/reader.cpp": ('#include "x/reader.hpp"\n'
                             'unsigned count(TableReader& t, std::string_view key) { return 1; }\n'
                             'void f(TableReader& t) { t.boolean("flag"); count(t, "threads");\n'
                             '  log("not_a_key"); }\n'
                             'constexpr Field kFields[] = {{"ambient_c", &Spec::ambient_c}};'),
            "y/other.cpp": 'void g() { r.boolean("elsewhere"); }',
        }
        self.assertEqual(set(toml_keys_in_code(sources)), {"flag", "threads", "ambient_c"})

    def test_metric_rule_finds_families_and_builders_only(self):
        sources = {"m.cpp": ('{"nvme_up", Family::gauge, "help"};\n'
                             'BuildGauge().Name("nvmond_build_info").Help("x");\n'
                             'if (f.name == "nvme_device_info") {}\n'
                             'fields.emplace("nvmond_version", v);')}
        self.assertEqual(set(families_in_code(sources)), {"nvme_up", "nvmond_build_info"})

    def test_anchors_are_named_as_github_names_them(self):
        self.assertEqual(anchors("## Soak runs: `[[soak]]`\n```\n# not a heading\n```\n"), {"soak-runs-soak"})

    def test_documented_names_come_from_first_cells(self):
        page = ("| key | meaning |\n|---|---|\n"
                "| `[thermal.performance] drop_share`, `margin_c` | about `not_this` |\n")
        self.assertEqual(documented_names(page, IDENT), {"thermal", "performance", "drop_share", "margin_c"})


if __name__ == "__main__":
    unittest.main()
