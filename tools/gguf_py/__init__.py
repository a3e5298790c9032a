"""Minimal GGUF tools for meadow-mind fixtures and references (Debian python3 + numpy)."""
from .gguf_file import Reader, Writer  # noqa: F401
from .quant import TYPES, dequantize, quantize  # noqa: F401
