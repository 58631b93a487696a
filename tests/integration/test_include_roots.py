"""Each library compiles against its own include root and those of the
libraries it links, never the whole source tree: a header of a library it
does not link is not found, so a layer edge the CMake file does not declare
fails to compile. Read from the build's compile_commands.json, with the
compiler and the include flags a library's own sources are built with."""
import json
import os
import shlex
import subprocess
import tempfile
import unittest

BUILD = os.environ.get("NVMOND_BUILD_DIR", "build")
SOURCE = os.path.realpath(os.environ.get("NVMOND_SOURCE_DIR", "."))


def compile_commands():
    path = os.path.join(BUILD, "compile_commands.json")
    if not os.path.isfile(path):
        raise unittest.SkipTest("no compile_commands.json in " + BUILD)
    with open(path) as f:
        return json.load(f)


def builds(command, source):
    """Whether this compile_commands entry compiles `source`: the file itself,
    or in a unity build the batch that includes it."""
    path = os.path.join(SOURCE, source)
    if os.path.realpath(command["file"]) == path:
        return True
    if "/Unity/" not in command["file"]:
        return False
    with open(os.path.join(command["directory"], command["file"])) as f:
        return f'#include "{path}"' in f.read()


def flags_of(source):
    """The compiler and its -I/-D/-std flags for one of the tree's sources."""
    for c in compile_commands():
        if builds(c, source):
            argv = shlex.split(c["command"])  # the compiler first; CMake keeps ccache out of this file
            keep, take_next = [], False
            for a in argv[1:]:
                if take_next or a.startswith(("-I", "-D", "-std")):
                    keep.append(a)
                take_next = a == "-isystem"
                if take_next:
                    keep.append(a)
            return argv[0], keep
    raise AssertionError(f"{source} is not in compile_commands.json")


def compiles(source_of_library, include):
    compiler, flags = flags_of(source_of_library)
    # From an empty directory: a quoted include is looked up beside the
    # including file first, and standard input's "directory" is the cwd.
    with tempfile.TemporaryDirectory() as cwd:
        r = subprocess.run([compiler, *flags, "-fsyntax-only", "-x", "c++", "-"], cwd=cwd,
                           input=f'#include "{include}"\n', capture_output=True, text=True)
    return r.returncode == 0, r.stderr


class IncludeRoots(unittest.TestCase):
    def test_a_library_sees_its_own_headers_and_those_it_links(self):
        for source, header in [("report/run_record.cpp", "report/run_record.hpp"),
                               ("report/run_record.cpp", "runmodel/run_codec.hpp"),  # linked: nvmond_run_model
                               ("store/sqlite_store.cpp", "core/result.hpp")]:
            ok, err = compiles(source, header)
            self.assertTrue(ok, f"{header} from {source}'s library:\n{err}")

    def test_a_header_of_a_library_it_does_not_link_is_not_found(self):
        # report links core and the run model only; control links no store;
        # the drive-log trackers sit below polling; the daemon's control
        # server, nested in daemon/, is a library the process links, not one
        # that sees the process.
        for source, header in [("report/run_record.cpp", "store/run_store.hpp"),
                               ("report/run_record.cpp", "daemon/daemon.hpp"),
                               ("control/codec.cpp", "store/run_store.hpp"),
                               ("runmodel/run_codec.cpp", "pts/plan.hpp"),
                               ("drivelog/nvme_exports.cpp", "polling/poller.hpp"),
                               ("daemon/control/control_server.cpp", "daemon/daemon.hpp")]:
            self.assertTrue(os.path.isfile(os.path.join(SOURCE, header)), header)  # it is there, just not reachable
            ok, err = compiles(source, header)
            self.assertFalse(ok, f"{header} compiled in {source}'s library")
            self.assertIn("No such file", err)

    def test_each_root_holds_one_link_to_its_folder(self):
        roots = os.path.join(BUILD, "include")
        self.assertTrue(os.path.isdir(roots), roots)
        for library in sorted(os.listdir(roots)):
            links = []
            for dirpath, dirnames, filenames in os.walk(os.path.join(roots, library)):
                for name in dirnames + filenames:
                    p = os.path.join(dirpath, name)
                    if os.path.islink(p):
                        links.append(p)
            self.assertEqual(len(links), 1, f"{library}: {links}")
            target = os.path.realpath(links[0])
            self.assertTrue(target.startswith(SOURCE + os.sep), f"{library} -> {target}")
            self.assertEqual(os.path.relpath(links[0], os.path.join(roots, library)),
                             os.path.relpath(target, SOURCE), library)


if __name__ == "__main__":
    unittest.main()
