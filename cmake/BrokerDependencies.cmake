# SPDX-License-Identifier: GPL-3.0-or-later
# Third-party dependencies. On Debian 12 they come from:
find_package(Qt6 6.4 REQUIRED COMPONENTS Core Network)
if(BROKER_BUILD_UI)
    find_package(Qt6 REQUIRED COMPONENTS Widgets)
    # qtkeychain-qt6-dev: the desktop keeps remote brokers' API keys in the keyring.
    find_package(Qt6Keychain REQUIRED)
endif()
find_package(yaml-cpp 0.7 REQUIRED)
find_package(PkgConfig REQUIRED)
# Debian's hiredis 0.14 ships no CMake package file.
pkg_check_modules(hiredis REQUIRED IMPORTED_TARGET hiredis>=0.14)
# libssl-dev: libssl is the API's TLS (rest/tlsservercontext); libcrypto makes the certificates of
# brokerd --make-cert.
find_package(OpenSSL 3.0 REQUIRED COMPONENTS SSL Crypto)

if(BUILD_TESTING)
    find_package(Qt6 REQUIRED COMPONENTS Test)
endif()
