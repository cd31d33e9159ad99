#!/usr/bin/env bash
# Builds the Sextant node image: a thin wrapper around `sextant image build` (the image tool,
# dev.sextant.imagebuilder, drives mkosi 24, ships node-boot, predicts the PCRs and writes
# OUTDIR/measurements.json). Kept for scripts and habits that call it.
#   scripts/build-image.sh [OUTDIR]            default OUTDIR: <repo>/out/image
# Environment:
#   SEXTANT_NODE_LIB   directory of jars to ship as /opt/sextant/lib instead of node-boot's
#   SEXTANT_NODE_MAIN  main class of those jars (default dev.sextant.nodeboot.Application)
#   MKOSI_ARGS         extra mkosi arguments (for example "-ff" to also drop the cache)
#   SEXTANT_SIGNING_KEY  private key PEM: also write OUTDIR/measurements.json.sig
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
args=(image build --repo "$repo" --out "${1:-$repo/out/image}")
if [ -n "${SEXTANT_NODE_LIB:-}" ]; then
  args+=(--node-lib "$SEXTANT_NODE_LIB" --node-main "${SEXTANT_NODE_MAIN:-dev.sextant.nodeboot.Application}")
fi
if [ -n "${SEXTANT_SIGNING_KEY:-}" ]; then
  args+=(--signing-key "$SEXTANT_SIGNING_KEY")
fi
for a in ${MKOSI_ARGS:-}; do
  args+=("--mkosi-arg=$a")
done
exec "$repo/bin/sextant" "${args[@]}"
