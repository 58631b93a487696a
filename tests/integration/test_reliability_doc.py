"""docs/reliability.md names, for each fault, the tests that show the
promise. A renamed or deleted test must take its line with it: every name in
a table's "shown by" column exists among the tests."""
import glob
import os
import re
import unittest

ROOT = os.environ.get("NVMOND_SOURCE_DIR", os.getcwd())


def sources():
    files = glob.glob(os.path.join(ROOT, "tests", "**", "*.py"), recursive=True)
    files += glob.glob(os.path.join(ROOT, "tests", "**", "*.cpp"), recursive=True)
    return "\n".join(open(f, encoding="utf-8").read() for f in files)


def shown_by(doc):
    """Every backticked name in the last cell of each table row below a header."""
    for line in doc.splitlines():
        if not line.startswith("|") or set(line) <= set("|-: ") or line.startswith("| fault"):
            continue
        yield from re.findall(r"`([^`]+)`", line.rstrip("| ").rsplit("|", 1)[-1])


def exists(name, src):
    if name.startswith("integration."):
        return os.path.exists(os.path.join(ROOT, "tests", "integration", name.split(".", 1)[1] + ".py"))
    if name.startswith("test_"):  # a Python test method
        return re.search(r"def " + re.escape(name) + r"\(", src) is not None
    if re.search(r"^class " + re.escape(name) + r"\(", src, re.M):  # a Python test class
        return True
    m = re.fullmatch(r"(\w+)/(\w+)\*", name)  # a parameterised table's rows by prefix
    if m:
        return m.group(1) in src and re.search(r'"' + m.group(2), src) is not None
    suite, _, test = name.partition(".")
    if test == "*":
        return re.search(r"TEST(_F|_P)?\(\s*" + suite + r"\b", src) is not None
    return re.search(r"TEST(_F|_P)?\(\s*" + suite + r",\s*" + test + r"\)", src) is not None


class ReliabilityDoc(unittest.TestCase):
    def test_every_test_the_page_names_exists(self):
        doc = open(os.path.join(ROOT, "docs", "reliability.md"), encoding="utf-8").read()
        src = sources()
        names = list(shown_by(doc))
        self.assertGreater(len(names), 30)
        missing = [n for n in names if not exists(n, src)]
        self.assertEqual(missing, [], "docs/reliability.md names tests that do not exist")


if __name__ == "__main__":
    unittest.main()
