#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# Renders resources/icons/brokerdesk.svg to the PNG sizes the app and the packages use
# (resources/icons/hicolor/<size>x<size>/brokerdesk.png). Run after changing the SVG; the PNGs are
# committed so that neither the build nor the app needs an SVG renderer. Needs rsvg-convert
# (Debian: librsvg2-bin).
set -eu
cd "$(dirname "$0")/../resources/icons"
for size in 16 24 32 48 64 128 256; do
    mkdir -p "hicolor/${size}x${size}"
    rsvg-convert -w "$size" -h "$size" brokerdesk.svg -o "hicolor/${size}x${size}/brokerdesk.png"
done

# The sidebar and tool bar fallbacks (ui/icons.cpp): resources/icons/ui/<name>.svg -> <name>-<size>.png
for svg in ui/*.svg; do
    for size in 16 24 32; do
        rsvg-convert -w "$size" -h "$size" "$svg" -o "${svg%.svg}-$size.png"
    done
done
