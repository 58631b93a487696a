"""Every unit-test file sits in the area of the code it tests.

tests/unit/<area>/ mirrors a source folder (tests/unit/pts/targets is
pts/targets/, tests/unit/nvme is collectors/nvme/) and links that folder's
library only, so each file there includes at least one header of it. A test
of a scenario across several folders belongs in tests/unit/component/,
which links them all; without this check such tests drift into whichever
area happened to link enough."""
import os
import re
import unittest

SOURCE = os.path.realpath(os.environ.get("NVMOND_SOURCE_DIR", "."))
UNIT = os.path.join(SOURCE, "tests", "unit")
SCENARIOS = "component"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
SKIP = {"tests", "bench", "docs", "build", ".git"}


def source_folders(root):
    """Folders holding production sources, relative to the root."""
    out = set()
    for dirpath, dirnames, names in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not (rel == "." and (d in SKIP or d.startswith("build")))]
        if rel != "." and any(n.endswith((".cpp", ".hpp")) for n in names):
            out.add(rel)
    return out


def folder_of(area, folders):
    """The source folder an area tests: its own path, or the one folder that
    ends with it (nvme: collectors/nvme)."""
    if area in folders:
        return area
    ends = [f for f in folders if f.endswith("/" + area)]
    return ends[0] if len(ends) == 1 else None


def strays(unit_root, folders):
    """`path (area)` of each test file that includes no header of its area."""
    out = []
    for dirpath, _, names in os.walk(unit_root):
        area = os.path.relpath(dirpath, unit_root)
        if area in (".", SCENARIOS) or area.startswith(SCENARIOS + "/"):
            continue
        folder = folder_of(area, folders)
        for name in sorted(n for n in names if n.startswith("test_") and n.endswith(".cpp")):
            path = os.path.join(dirpath, name)
            with open(path) as f:
                includes = INCLUDE.findall(f.read())
            if folder is None or not any(os.path.dirname(i) == folder for i in includes):
                out.append(f"{os.path.relpath(path, unit_root)} ({folder or 'no folder ' + area})")
    return out


class UnitAreas(unittest.TestCase):
    def test_each_file_includes_a_header_of_its_area(self):
        folders = source_folders(SOURCE)
        self.assertIn("core", folders, "sources not found under " + SOURCE)
        self.assertEqual(strays(UNIT, folders), [],
                         "these files test no header of their area: move them to the area they test, "
                         "or to tests/unit/component/ if they span several")

    def test_a_file_of_another_area_is_found(self):
        import tempfile
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "pts", "targets"))
            os.makedirs(os.path.join(root, "collectors", "nvme"))
            for folder, name, text in [
                ("pts", "test_ok.cpp", '#include "pts/plan.hpp"\n'),
                ("pts", "test_stray.cpp", '#include "pts/targets/sim_target.hpp"\n'),
                ("pts/targets", "test_ok.cpp", '#include "pts/targets/sim_target.hpp"\n'),
                ("nvme", "test_ok.cpp", '#include "collectors/nvme/decode.hpp"\n'),
                ("component", "test_any.cpp", '#include "soak/soak_runner.hpp"\n'),
            ]:
                os.makedirs(os.path.join(root, folder), exist_ok=True)
                with open(os.path.join(root, folder, name), "w") as f:
                    f.write(text)
            folders = {"pts", "pts/targets", "collectors", "collectors/nvme", "soak"}
            self.assertEqual(strays(root, folders), ["pts/test_stray.cpp (pts)"])


if __name__ == "__main__":
    unittest.main()
