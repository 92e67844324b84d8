# SPDX-License-Identifier: GPL-3.0-or-later
# Read by cpack once per generator (CPACK_PROJECT_CONFIG_FILE).
if(CPACK_GENERATOR STREQUAL "TGZ")
    # Archives mirror the packages' layout (usr/..., etc/brokerd, lib/systemd): extract them at /.
    set(CPACK_SET_DESTDIR ON)
    set(CPACK_INSTALL_PREFIX /usr)
    set(CPACK_PACKAGING_INSTALL_PREFIX /)
endif()
if(CPACK_GENERATOR STREQUAL "DEB")
    # Each package's first description line is its own synopsis: CPackDeb 3.25 would put the
    # project's summary in front unless it is the default one.
    set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CPACK_DEFAULT_PACKAGE_DESCRIPTION_SUMMARY}")
endif()
