import json, sys, os, glob
# Copy a recording into serve/testdata, trimming long strings the same way in every request
# (so that every turn's prompt still begins with the previous turn's).
src, dst = sys.argv[1], sys.argv[2]
KEEP = {"signature", "encrypted_content", "thinking", "arguments", "input", "generations"}
LIMIT = 300
def trim(v, key=None):
    if isinstance(v, dict):
        return {k: (x if k in KEEP else trim(x, k)) for k, x in v.items()}
    if isinstance(v, list):
        return [trim(x, key) for x in v]
    if isinstance(v, str) and len(v) > LIMIT:
        return v[:LIMIT] + " [trimmed %d bytes]" % (len(v.encode()) - len(v[:LIMIT].encode()))
    return v
os.makedirs(dst, exist_ok=True)
n = 0
for f in sorted(glob.glob(src + "/*.json")):
    e = json.load(open(f))
    if e["method"] != "POST":
        continue
    n += 1
    e["body"] = trim(e["body"])
    if e.get("status") in (None, 200):
        # Only a refusal's status is kept (a session replayed under a flag).
        e.pop("status", None)
    with open(os.path.join(dst, "%03d.json" % n), "w") as out:
        json.dump(e, out, indent=1, ensure_ascii=False)
        out.write("\n")
print(n, "requests")
