# The Debian package: `cpack -G DEB` in a build directory (or
# `cmake --build build --target package`). Installs under /usr what
# packaging/install.cmake lists (the unit then runs /usr/sbin/nvmond), with
# the default configuration as a conffile. Dependencies come from
# dpkg-shlibdeps on the binaries. Maintainer scripts: packaging/debian/;
# lintian's verdict: tests/package/test_lintian.py.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nvmond)
set(CPACK_PACKAGE_VENDOR "nvmond")
set(CPACK_PACKAGE_CONTACT "${NVMOND_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "NVMe health, wear and thermal-throttling exporter for Prometheus")
set(CPACK_PACKAGE_DESCRIPTION
  "nvmond reads NVMe SMART/health logs through libnvme, computes DWPD wear and\nthermal throttling events with a SQLite history, runs io_uring soak workloads\non drives handed over for testing and exposes it all to Prometheus.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# init-system-helpers: deb-systemd-helper/-invoke in the maintainer scripts.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "init-system-helpers (>= 1.52)")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
  ${CMAKE_SOURCE_DIR}/packaging/debian/conffiles
  ${CMAKE_SOURCE_DIR}/packaging/debian/postinst
  ${CMAKE_SOURCE_DIR}/packaging/debian/prerm
  ${CMAKE_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
