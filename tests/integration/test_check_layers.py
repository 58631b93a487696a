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
        # collectors/nvme shares layer 1 with collectors/, daemon/http is layer 5 like daemon/.
        with tree({"collectors/nvme/d.hpp": "#include \"daemon/http/server.hpp\"\n",
                   "daemon/http/server.hpp": "#include \"collectors/nvme/d.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("collectors/nvme/d.hpp:1: includes daemon/http/server.hpp (layer 5", r.stderr)
        self.assertNotIn("daemon/http/server.hpp:1", r.stderr)

    def test_downward_and_sideways_includes_pass(self):
        with tree({"daemon/x.cpp": "#include \"pts/p.hpp\"\n#include \"core/log.hpp\"\n",
                   "workloads/w.hpp": "#include \"store/store.hpp\"\n",
                   "tests/unit/t.cpp": "#include \"daemon/x.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 0, r.stderr)


CMAKE = """
nvmond_module(nvmond_core core PkgConfig::FMT)
nvmond_module(nvmond_store store nvmond_core)
nvmond_module(nvmond_workloads workloads nvmond_core)
nvmond_module(nvmond_analytics analytics nvmond_store)
"""


class CheckLinkEdges(unittest.TestCase):
    def test_an_include_of_a_library_not_linked_fails(self):
        # Sideways (layer 2 to layer 2) passes the layer order, but workloads
        # does not link the store: the include only works by a shared path.
        with tree({"CMakeLists.txt": CMAKE,
                   "workloads/w.cpp": "#include \"store/store.hpp\"\n",
                   "store/store.hpp": "#include \"core/log.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("workloads/w.cpp:1: includes store/store.hpp of nvmond_store, "
                      "which nvmond_workloads does not link to", r.stderr)

    def test_a_link_edge_up_a_layer_fails(self):
        with tree({"CMakeLists.txt": CMAKE + "nvmond_module(nvmond_x store nvmond_analytics)\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("nvmond_x (layer 2) links up to nvmond_analytics (layer 3)", r.stderr)

    def test_a_nested_folder_with_its_own_module_is_its_own_library(self):
        # daemon/control/ is a library of its own that daemon/ links, not a
        # part of nvmond_daemon: it may not reach back up into the process.
        cmake = CMAKE + ("nvmond_module(nvmond_daemon_control daemon/control nvmond_core)\n"
                         "nvmond_module(nvmond_daemon daemon nvmond_daemon_control)\n")
        with tree({"CMakeLists.txt": cmake,
                   "daemon/d.cpp": "#include \"daemon/control/c.hpp\"\n",
                   "daemon/control/c.hpp": "#include \"core/log.hpp\"\n",
                   "daemon/control/c.cpp": "#include \"daemon/d.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("daemon/control/c.cpp:1: includes daemon/d.hpp of nvmond_daemon, "
                      "which nvmond_daemon_control does not link to", r.stderr)
        self.assertNotIn("daemon/d.cpp", r.stderr)

    def test_a_transitive_link_is_enough(self):
        with tree({"CMakeLists.txt": CMAKE,
                   "analytics/a.cpp": "#include \"core/log.hpp\"\n#include \"store/store.hpp\"\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 0, r.stderr)


class CheckThirdPartyHeaders(unittest.TestCase):
    """Each third-party library belongs to one role; an include of it
    elsewhere fails with the file and line."""

    def planted(self, rel, header):
        with tree({rel: f"#pragma once\n#include <{header}>\n"}) as root:
            return check(root)

    def assert_refused(self, rel, header, what):
        r = self.planted(rel, header)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(f"{rel}:2: includes <{header}> ({what})", r.stderr)

    def test_libnvme_outside_the_nvme_collector_fails(self):
        self.assert_refused("store/s.cpp", "libnvme.h", "libnvme")
        self.assert_refused("workloads/w.cpp", "nvme/ioctl.h", "libnvme")
        # the parent folder is not the NVMe collector
        self.assert_refused("collectors/device.hpp", "libnvme.h", "libnvme")

    def test_sqlite_outside_the_store_fails(self):
        self.assert_refused("analytics/a.cpp", "sqlite3.h", "SQLite")

    def test_asio_in_nvmonctl_or_the_control_protocol_fails(self):
        self.assert_refused("nvmonctl/client.cpp", "boost/asio/local/stream_protocol.hpp", "Asio")
        self.assert_refused("control/codec.hpp", "boost/asio.hpp", "Asio")
        self.assert_refused("services/config.cpp", "boost/asio/io_context.hpp", "Asio")

    def test_asio_off_the_event_loop_fails(self):
        # The drive-log trackers, the soak runner and the self-test scheduler
        # hand work to the loop through what they are given, never Asio.
        self.assert_refused("drivelog/t.cpp", "boost/asio/post.hpp", "Asio")
        self.assert_refused("soak/soak_runner.cpp", "boost/asio/io_context.hpp", "Asio")
        self.assert_refused("selftest/s.hpp", "boost/asio/steady_timer.hpp", "Asio")

    def test_libsystemd_outside_the_daemon_fails(self):
        self.assert_refused("services/s.cpp", "systemd/sd-daemon.h", "libsystemd")

    def test_openssl_outside_the_http_server_fails(self):
        self.assert_refused("daemon/d.cpp", "openssl/ssl.h", "OpenSSL")

    def test_each_library_passes_in_its_own_folder(self):
        with tree({"collectors/nvme/n.cpp": "#include <libnvme.h>\n#include <nvme/types.h>\n",
                   "store/s.cpp": "#include <sqlite3.h>\n",
                   "http/h.cpp": "#include <boost/asio/ssl.hpp>\n#include <openssl/ssl.h>\n",
                   "daemon/d.cpp": "#include <boost/asio/io_context.hpp>\n#include <systemd/sd-daemon.h>\n",
                   "daemon/control/c.cpp": "#include <boost/asio/local/stream_protocol.hpp>\n",
                   "polling/p.cpp": "#include <boost/asio/steady_timer.hpp>\n",
                   "nvmonctl/c.cpp": "#include <boost/algorithm/string.hpp>\n#include <sys/socket.h>\n",
                   "tests/unit/t.cpp": "#include <sqlite3.h>\n#include <boost/asio.hpp>\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 0, r.stderr)


class CheckSourceFolders(unittest.TestCase):
    def test_a_source_folder_missing_from_the_table_fails(self):
        with tree({"daemon/ctl/main.cpp": "int main() {}\n", "daemon/d.cpp": "\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 1)
        self.assertIn("daemon/ctl/: source folder without a layer", r.stderr)
        self.assertNotIn("daemon/: source folder", r.stderr)

    def test_a_build_tree_is_not_a_source_folder(self):
        with tree({"build/CMakeCache.txt": "",
                   "build/CMakeFiles/3.25/CompilerIdCXX/CMakeCXXCompilerId.cpp": "#include <sqlite3.h>\n"}) as root:
            r = check(root)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    unittest.main()
