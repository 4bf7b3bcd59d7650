"""The .gemm frontend: Lark parses the source, `build_module` turns it into gemm IR."""

from gemmc.frontend.parser import parse_gemm

__all__ = ["parse_gemm"]
