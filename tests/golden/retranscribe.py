#!/usr/bin/python3
"""Refresh the docs' `$ ddlsim ...` transcripts (tests/docs_transcripts_test.cpp checks them) after a
change to the model: every shown line that today's output no longer prints (in order) is replaced
by the most similar printed line after the previous match, and each replacement is printed. Read
the diff: a table whose rows changed order needs a hand fix.
Usage: /usr/bin/python3 tests/golden/retranscribe.py SOURCE_DIR BUILD/ddlsim"""
import atexit, difflib, glob, os, shutil, subprocess, sys, tempfile
src = os.path.abspath(sys.argv[1]); binary = os.path.abspath(sys.argv[2])
tmp = tempfile.mkdtemp()
atexit.register(shutil.rmtree, tmp)
for d in ("scenarios", "tests", "calibration"): os.symlink(f"{src}/{d}", f"{tmp}/{d}")
os.mkdir(f"{tmp}/docs")
files = sorted(glob.glob(f"{src}/docs/*.md")) + [f"{src}/README.md"]
for f in files:
    lines = open(f).read().split("\n")
    fenced = False; i = 0; changed = False
    while i < len(lines):
        l = lines[i]
        if l.startswith("```"): fenced = not fenced; i += 1; continue
        if fenced and l.startswith("$ ddlsim "):
            cmd = l[len("$ ddlsim "):]
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```") and not lines[j].startswith("$ "): j += 1
            out = subprocess.run(f"cd {tmp} && timeout 300 {binary} {cmd} 2>&1", shell=True, capture_output=True, text=True).stdout
            got = [g.rstrip() for g in out.split("\n")]
            at = 0
            for k in range(i + 1, j):
                want = lines[k].rstrip()
                if want in ("", "..."): continue
                if want in got[at:]:
                    at = got.index(want, at) + 1; continue
                best, bi = 0, None
                for m in range(at, len(got)):
                    r = difflib.SequenceMatcher(None, want, got[m]).ratio()
                    if r > best: best, bi = r, m
                if bi is not None and best > 0.5:
                    print(f"{f}:{k+1}: {want!r}\n   -> {got[bi]!r}")
                    lines[k] = got[bi]; at = bi + 1; changed = True
                else:
                    print(f"{f}:{k+1}: NO MATCH {want!r}")
            i = j; continue
        i += 1
    if changed: open(f, "w").write("\n".join(lines))
