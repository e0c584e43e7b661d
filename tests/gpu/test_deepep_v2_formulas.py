"""DeepEP V2 ElasticBuffer size (formulas_v2) against hand-computed figures and the one public log line.

calculate_buffer_size (deepseek-ai/DeepEP@dd758ca csrc/elastic/buffer.hpp:652-686): token slots are 32-byte
aligned parts (hidden, scales, metadata); A32(x) = ceil(x / 32) * 32; kNumMaxChannels = 1280.
"""
from __future__ import annotations

import pytest

from moecfg.backends.deepep.ops.v2 import formulas as v2
from moecfg.backends.deepep.arguments import elastic_buffer_bytes

MIB2 = 2 * 1024 * 1024


def test_public_figure_sglang_pr_24443():
    # sglang PR #24443, EP_BUFFER_DEBUG: "Initializing EP elastic buffer with 1218445312 bytes" for 2 nodes x 8 =
    # 16 ranks, hybrid, num_max_tokens_per_rank 4096, hidden 7168, BF16, top-8.
    assert elastic_buffer_bytes(16, 4096, 7168, 8) == 1_218_445_312


def test_hybrid_bf16_top8_by_hand():
    t = v2.topology(16, 8, True)  # hybrid: scaleout 2 (nodes), scaleup 8 (NVLink)
    # dispatch token: A32(7168 * 2) = 14336; metadata 8 * (4 + 4) + (1 + 8) * 4 = 100 -> 128; total 14464
    assert v2.dispatch_token_bytes(7168, 8, False) == 14464
    # combine token: 14336 + A32(8 * 8) = 14336 + 64 = 14400
    assert v2.combine_token_bytes(7168, 8) == 14400
    # dispatch = 14464 * (8 * 2 * 4096 + 4096 + 2 * (4096 + 1280)) = 14464 * 80384 = 1162674176
    assert v2.dispatch_buffer_bytes(4096, 7168, 8, False, t) == 14464 * 80384 == 1_162_674_176
    # combine = 14400 * (min(8, 8) * 2 * 4096 + min(2, 8) * 4096 + 1 * 2 * (4096 + 1280)) = 14400 * 84480
    assert v2.combine_buffer_bytes(4096, 7168, 8, t) == 14400 * 84480 == 1_216_512_000
    # align 2 MiB: ceil(1216512000 / 2097152) = 581 -> 581 * 2097152 = 1218445312
    assert v2.buffer_size(4096, 7168, 8, False, t).num_bytes == 581 * MIB2


def test_topk_zero_is_sized_as_32():
    t = v2.topology(16, 8, True)
    # top-32: dispatch token 14336 + A32(32 * 8 + 33 * 4 = 388) = 14336 + 416 = 14752; combine 14336 + 256 = 14592
    assert v2.dispatch_token_bytes(7168, 32, False) == 14752
    assert v2.combine_token_bytes(7168, 32) == 14592
    # combine = 14592 * 84480 = 1232732160 > dispatch 14752 * 80384 = 1185824768 -> ceil(/2 MiB) = 588 -> 1233125376
    s = v2.buffer_size(4096, 7168, 0, False, t)
    assert s.num_topk_sized == 32 and s.combine_bytes == 1_232_732_160 and s.dispatch_bytes == 1_185_824_768
    assert s.num_bytes == 588 * MIB2 == 1_233_125_376


def test_direct_mode_over_nvlink_one_node():
    t = v2.topology(8, 8, True)  # one NVLink domain: scaleout 1 -> direct, scale-up over NVLink (no send buffer)
    assert not t.hybrid and t.is_scaleup_nvlink
    # dispatch = 14464 * (0 + 8) * 128 = 14811136; combine = 14400 * min(8, 8) * 128 = 14745600
    s = v2.buffer_size(128, 7168, 8, False, t)
    assert (s.dispatch_bytes, s.combine_bytes) == (14_811_136, 14_745_600)
    assert s.num_bytes == 8 * MIB2  # ceil(14811136 / 2097152) = 8


def test_direct_mode_across_nodes_has_send_buffers():
    t = v2.topology(16, 8, False)  # allow_hybrid_mode False: scaleout 1, scaleup 16, not NVLink-only
    assert not t.hybrid and not t.is_scaleup_nvlink
    # dispatch = 14464 * (1 + 16) * 128 = 31473664; combine = 14400 * (16 * 128 + min(16, 8) * 128) = 44236800
    s = v2.buffer_size(128, 7168, 8, False, t)
    assert (s.dispatch_bytes, s.combine_bytes) == (31_473_664, 44_236_800)
    assert s.num_bytes == 22 * MIB2  # ceil(44236800 / 2097152) = 22


def test_fp8_dispatch_token_has_scales():
    # FP8: hidden 7168 bytes; scales ceil(7168 / 32) * 4 = 896; metadata 128 -> 7168 + 896 + 128 = 8192
    assert v2.dispatch_token_bytes(7168, 8, True) == 8192


def test_single_reduction_hybrid_combine():
    t = v2.topology(16, 8, True)
    # no multiple reduction: (8 * 2 * 4096 + 8 * 4096 + 8 * 2 * 5376) * 14400 = (65536 + 32768 + 86016) * 14400
    assert v2.combine_buffer_bytes(4096, 7168, 8, t, False) == 184320 * 14400


def test_workspace_is_16_mib():
    # layout.cuh WorkspaceLayout: 16 + 3072*8 + 1024*16 + 2048*16 + 1024*4 + 1024*8 + 2048*8 + 1024*1280*12 + 32
    # + 33*1024*4 = 15966256 bytes -> 2 MiB aligned 16777216
    assert v2.workspace_bytes() == 16 * 1024 * 1024


@pytest.mark.parametrize("ranks, nvl, ok", [(16, 8, True), (72, 72, True), (20, 8, False)])
def test_topology_needs_whole_domains(ranks, nvl, ok):
    if ok:
        assert v2.topology(ranks, nvl).num_nvl_ranks == nvl
    else:
        with pytest.raises(ValueError):
            v2.topology(ranks, nvl)


def test_host_asserts_in_the_formula():
    t = v2.topology(8, 8)
    with pytest.raises(ValueError):
        v2.buffer_size(0, 7168, 8, False, t)
    with pytest.raises(ValueError):
        v2.buffer_size(1, 3, 8, False, t)  # ceil(3 / 32) * 4 = 4 > 3
    assert v2.buffer_size(1, 4, 8, False, t).num_bytes == MIB2
