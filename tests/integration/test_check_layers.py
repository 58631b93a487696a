"""scripts/check-layers: the tree passes, and an include that points up a
layer fails the check with the file, the line and both layers."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from nvmond_harness import SOURCE_DIR  # noqa: E402

CHECK = os.path.join(SOURCE_DIR, "scripts", "check-layers")


def check(root=None):
    args = [sys.executable, CHECK] + (["--root", root] if root else [])
    return subprocess.run(args, capture_output=True, text=True)


def tree(files):
    d = tempfile.TemporaryDirectory(prefix="nvmond-layers-")
    for rel, text in files.items():
        path = os.path.join(d.name, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return d


class CheckLayers(unittest.TestCase):
    def test_the_tree_passes(self):
        r = check()
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_an_upward_include_fails_with_where_and_which_layers(self):
        with tree({"core/clock.hpp": "#pragma once\n\n#include \"daemon/fleet.hpp\"\n",
                   "daemon/fleet.hpp": "#pragma once\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("core/clock.hpp:3: includes daemon/fleet.hpp (layer 5, daemon) from layer 0 (core)",
                      r.stderr)

    def test_a_nested_folder_is_judged_by_its_own_layer(self):
        # daemon/store is below collectors/analytics, daemon/ is above it.
        with tree({"collectors/analytics/a.hpp": "#include \"daemon/store/store.hpp\"\n",
                   "daemon/store/store.hpp": "#include \"collectors/analytics/a.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("daemon/store/store.hpp:1: includes collectors/analytics/a.hpp", r.stderr)
        self.assertNotIn("collectors/analytics/a.hpp:1", r.stderr)

    def test_downward_and_sideways_includes_pass(self):
        with tree({"daemon/x.cpp": "#include \"pts/p.hpp\"\n#include \"core/log.hpp\"\n",
                   "workloads/w.hpp": "#include \"daemon/store/store.hpp\"\n",
                   "tests/unit/t.cpp": "#include \"daemon/x.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
