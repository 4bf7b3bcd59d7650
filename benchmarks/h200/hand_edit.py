"""A hand experiment (not gemmc output; twentieth session): the wgmma kernel with one MMA group in flight
(wait_group 1) and float2 C stores, written from a matrix.py program to measure before the passes existed.
    hand_edit.py PROGRAM.cu OUT_DIR N   (then matrix.sh OUT_DIR on the GPU)"""
import json
import sys
from pathlib import Path

def inflight(s: str) -> str:
    lines = s.split("\n")
    # prologue: drop tile 2 (from 'const int t2_1 = 2;' to its commit)
    a = next(i for i, l in enumerate(lines) if l.strip() == "const int t2_1 = 2;")
    b = next(i for i in range(a, len(lines)) if "cp.async.commit_group" in lines[i])
    del lines[a:b + 1]
    s = "\n".join(lines)
    # before the loop: no wait/sync (done at the top of each iteration)
    s = s.replace('    asm volatile("cp.async.wait_group 2;\\n" ::: "memory");\n    __syncthreads();\n    for (int t = 0; t < num_tiles; ++t)\n    {\n',
                  '    for (int t = 0; t < num_tiles; ++t)\n    {\n        asm volatile("cp.async.wait_group 1;\\n" ::: "memory");\n        __syncthreads();\n', 1)
    # cut the prefetch block + its commit out, re-insert after the wgmma wait (as wait 1)
    i = s.index("        const int next_t = t + 3;")
    j = s.index('        asm volatile("cp.async.commit_group;\\n" ::: "memory");\n', i)
    j_end = j + len('        asm volatile("cp.async.commit_group;\\n" ::: "memory");\n')
    pre = s[i:j_end].replace("t + 3", "t + 2")
    s = s[:i] + s[j_end:]
    s = s.replace('            asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");\n        }\n        asm volatile("cp.async.wait_group 2;\\n" ::: "memory");\n        __syncthreads();\n    }\n',
                  '            asm volatile("wgmma.wait_group.sync.aligned 1;\\n" ::: "memory");\n        }\n' + pre + '    }\n    asm volatile("wgmma.wait_group.sync.aligned 0;\\n" ::: "memory");\n', 1)
    assert s.count("wgmma.wait_group.sync.aligned 1") == 1 and "t + 3" not in s, "edit failed"
    return s

def float2_store(s: str, n: int) -> str:
    old = f"""    for (int g = 0; g < 128; ++g)
    {{
        const int r = lane_row + g / 2 % 2 * 8;
        const int c_1 = lane_col + (g / 4 * 8 + g % 2);
        const bool inside = r < M && c_1 < N;
        if (inside)
        {{
            C[r * {n} + c_1] = acc[0][0][g];
        }}
    }}"""
    new = f"""    for (int g = 0; g < 128; g += 2)
    {{
        const int r = lane_row + g / 2 % 2 * 8;
        const int c_1 = lane_col + (g / 4 * 8);
        if (r < M && c_1 + 1 < N)
            *reinterpret_cast<float2*>(&C[r * {n} + c_1]) = make_float2(acc[0][0][g], acc[0][0][g + 1]);
    }}"""
    assert old in s, "store not found"
    return s.replace(old, new)

src = Path(sys.argv[1]); out = Path(sys.argv[2]); n = int(sys.argv[3])
out.mkdir(exist_ok=True)
s = src.read_text()
progs = []
for name, text in [("base", s), ("inflight", inflight(s)), ("f2", float2_store(s, n)), ("inflight_f2", float2_store(inflight(s), n))]:
    f = out / f"mx_f16_sq{n}_hand_{name}.cu"
    f.write_text(text)
    progs.append({"shape": f"sq{n}", "type": "f16", "variant": f"hand_{name}", "file": f.name})
m = out / "manifest.json"
old = json.loads(m.read_text()) if m.exists() else {"programs": []}
old["programs"] += progs
m.write_text(json.dumps(old, indent=1))
