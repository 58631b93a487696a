# What `cmake --install` and the package install besides the binaries: the
# unit, the default configuration, Grafana files and the README.
#
# The unit is made when installing, not when building, so that it carries
# the prefix being installed to (cpack installs to /usr whatever
# CMAKE_INSTALL_PREFIX the build was configured with).
include(GNUInstallDirs)

set(_stage ${CMAKE_BINARY_DIR}/install-stage)

# The unit: its paths follow the install prefix. Component `unit` lets a test
# install it alone.
install(CODE "
  set(CMAKE_INSTALL_FULL_SBINDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_SBINDIR}\")
  set(CMAKE_INSTALL_FULL_DOCDIR \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\")
  configure_file(\"${CMAKE_SOURCE_DIR}/systemd/nvmond.service.in\" \"${_stage}/nvmond.service\" @ONLY)
  file(INSTALL \"${_stage}/nvmond.service\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/lib/systemd/system\")
" COMPONENT unit)
install(FILES systemd/nvmond.toml DESTINATION /etc/nvmond)
install(DIRECTORY grafana/ DESTINATION ${CMAKE_INSTALL_DATADIR}/nvmond/grafana)

install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
