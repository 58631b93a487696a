# What `cmake --install` and the package install besides the binaries: the
# unit, the default configuration, Grafana files, the manual pages, the
# README, the copyright and the changelog.
#
# The unit, the manual pages and the changelog are made when installing,
# not when building, so that they carry the prefix being installed to
# (cpack installs to /usr whatever CMAKE_INSTALL_PREFIX the build was
# configured with) and so that a build of only nvmond and nvmonctl still
# packages them.
include(GNUInstallDirs)

# Who answers for the package: its Maintainer and the changelog's signature.
# The default is a placeholder that cannot receive mail; whoever publishes
# the package sets theirs.
set(NVMOND_MAINTAINER "nvmond maintainers <nvmond@nvmond.invalid>" CACHE STRING
    "Maintainer of the Debian package (name <address>)")

find_program(NVMOND_GO_MD2MAN go-md2man)
find_program(NVMOND_GZIP gzip REQUIRED)
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
# bash-completion loads a command's completion on first use from here.
install(FILES packaging/bash-completion/nvmonctl DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# Manual pages from docs/man/ (go-md2man, compressed as Debian policy asks).
# nvmond.toml(5) continues with docs/configuration.md, the one configuration
# reference.
set(_render "")
function(nvmond_man_page name section)
  set(reference "${ARGN}")
  set(_render "${_render}
    execute_process(COMMAND \"${CMAKE_COMMAND}\" -DMD2MAN=${NVMOND_GO_MD2MAN} -DGZIP=${NVMOND_GZIP}
      -DSOURCE=${CMAKE_SOURCE_DIR}/docs/man/${name}.md \"-DAPPEND=${reference}\" -DOUT=${_stage}/man/${name}
      -P ${CMAKE_SOURCE_DIR}/docs/man/render.cmake COMMAND_ERROR_IS_FATAL ANY)
    file(INSTALL \"${_stage}/man/${name}.gz\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_MANDIR}/man${section}\")"
    PARENT_SCOPE)
endfunction()
nvmond_man_page(nvmond.8 8)
nvmond_man_page(nvmonctl.1 1)
nvmond_man_page(nvmond.toml.5 5 ${CMAKE_SOURCE_DIR}/docs/configuration.md)
if(NVMOND_GO_MD2MAN)
  install(CODE "${_render}" COMPONENT man)
else()
  install(CODE "message(FATAL_ERROR \"go-md2man is not installed: no manual pages (scripts/setup installs it)\")"
          COMPONENT man)
endif()
add_custom_target(man
  COMMAND ${CMAKE_COMMAND} --install ${CMAKE_BINARY_DIR} --component man --prefix ${CMAKE_BINARY_DIR}/man-preview
  COMMENT "Manual pages in build/man-preview/${CMAKE_INSTALL_MANDIR}")

# /usr/share/doc/nvmond: the README and docs/, the machine-readable copyright
# and the changelog (gzip -9n: reproducible, as Debian policy asks).
configure_file(packaging/debian/changelog.in ${_stage}/changelog @ONLY)
install(CODE "
  execute_process(COMMAND \"${NVMOND_GZIP}\" -9n -c \"${_stage}/changelog\" OUTPUT_FILE \"${_stage}/changelog.gz\"
                  COMMAND_ERROR_IS_FATAL ANY)
  file(INSTALL \"${_stage}/changelog.gz\" DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DOCDIR}\")
")
install(FILES README.md packaging/debian/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
# The reference pages beside the README, so its links resolve.
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs
        FILES_MATCHING PATTERN "*.md" PATTERN "*.png" PATTERN "man" EXCLUDE)
install(FILES packaging/debian/lintian-overrides DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides
        RENAME nvmond)
