"""Every unit-test file keeps its helpers in its own namespace.

The test units compile several files per unit (unity batches). A file's
anonymous namespace is shared with the files beside it there, so two files'
`Fixture` or `kDrive` clash, and which files share a unit changes as files
are added. Each `namespace {` therefore opens NVMOND_TEST_UNIT, which CMake
defines to a name of the file's own (tests/CMakeLists.txt)."""
import os
import re
import unittest

SOURCE = os.path.realpath(os.environ.get("NVMOND_SOURCE_DIR", "."))
OPEN = re.compile(r"^namespace \{\s*$")
INNER = "namespace NVMOND_TEST_UNIT {"


def unit_test_files():
    root = os.path.join(SOURCE, "tests", "unit")
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(".cpp"):
                yield os.path.join(dirpath, name)


def bare_anonymous_namespaces(path):
    """Line numbers of `namespace {` not followed by the file's own namespace."""
    with open(path) as f:
        lines = f.read().splitlines()
    return [i + 1 for i, line in enumerate(lines)
            if OPEN.match(line) and (i + 1 >= len(lines) or lines[i + 1].strip() != INNER)]


class UnitNamespaces(unittest.TestCase):
    def test_each_anonymous_namespace_opens_the_files_own(self):
        files = list(unit_test_files())
        self.assertGreater(len(files), 100, "tests/unit not found under " + SOURCE)
        bare = [f"{os.path.relpath(p, SOURCE)}:{n}" for p in files for n in bare_anonymous_namespaces(p)]
        self.assertEqual(bare, [], "namespace { without `" + INNER + "` on the next line")

    def test_a_bare_anonymous_namespace_is_found(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".cpp") as f:
            f.write("namespace nvmond {\nnamespace {\nint kDrive = 1;\n}\n}\n")
            f.flush()
            self.assertEqual(bare_anonymous_namespaces(f.name), [2])


if __name__ == "__main__":
    unittest.main()
