"""Resource checks shared by the tiling passes: LDS bytes, threads and VGPRs per arch."""

from __future__ import annotations

from xdsl.dialects.builtin import StringAttr

from gemmc.target.arch import Arch
from gemmc.transforms.contraction import Contraction
from gemmc.support.diagnostics import pass_error
from gemmc.support.ir_names import FLAT_WORK_GROUP_SIZE_ATTR
from gemmc.target.resources import ELEMENT_BYTES
from gemmc.transforms.schedule import Schedule



def element_bytes(con: Contraction) -> int:
    return ELEMENT_BYTES[str(con.in_type)]


def check_fits(pass_name: str, kernel, s: Schedule, con: Contraction, arch: Arch) -> None:
    lds = s.lds_bytes(element_bytes(con))
    if lds > arch.lds_limit:
        raise pass_error(
            pass_name, kernel,
            f"LDS tiles need {lds} bytes but {arch.name} has {arch.lds_limit} per workgroup",
        )
    if s.threads > arch.max_threads_per_block:
        raise pass_error(
            pass_name, kernel,
            f"{s.threads_x}x{s.threads_y} = {s.threads} threads exceed {arch.max_threads_per_block} per workgroup",
        )
    bounds = kernel.attributes.get(FLAT_WORK_GROUP_SIZE_ATTR)
    if isinstance(bounds, StringAttr) and bounds.data.split(",")[-1].strip().isdigit():
        limit = int(bounds.data.split(",")[-1])
        if s.threads > limit:
            raise pass_error(
                pass_name, kernel,
                f"{s.threads} threads per workgroup exceed the launch bounds ({limit}) that launch-bounds "
                "set; run launch-bounds after the tiling passes",
            )
    vgprs = s.vgpr_estimate(element_bytes(con))
    if vgprs > arch.vgprs_per_lane:
        raise pass_error(
            pass_name, kernel,
            f"a {s.thread_m}x{s.thread_n} accumulator tile needs about {vgprs} VGPRs but "
            f"{arch.name} has {arch.vgprs_per_lane} per lane",
        )
