#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# A local Hugging Face Hub for run_assets_test: the two endpoints repo2rocm's asset fetcher uses,
# answered from a directory tree DIR/{models,datasets}/ORG/NAME/<files>.
#   GET /api/{models,datasets}/ORG/NAME/revision/REV -> {"id", "sha", "siblings": [{"rfilename"}]}
#   GET /[datasets/]ORG/NAME/resolve/REV/PATH        -> the file, with X-Repo-Commit and ETag
# REV is "main" or the commit, a sha1 of the repository's files (names and bytes). A repository
# holding a file ".gated" answers 401 unless the request carries "Authorization: Bearer <its
# content>". A file ".siblings" (a JSON list) replaces the listed file names: a hostile hub. Anything
# else is 404. Every request is logged on stderr as "GET PATH auth=yes|no".
import hashlib
import json
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

ROOT = sys.argv[2] if len(sys.argv) > 2 else "/srv"


def files_of(repo):
    out = []
    for base, _, names in os.walk(repo):
        for n in names:
            rel = os.path.relpath(os.path.join(base, n), repo)
            if rel not in (".gated", ".siblings"):
                out.append(rel)
    return sorted(out)


def commit_of(repo):
    h = hashlib.sha1()
    for rel in files_of(repo):
        h.update(rel.encode() + b"\0")
        with open(os.path.join(repo, rel), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


class Hub(BaseHTTPRequestHandler):
    def log_message(self, fmt, *args):
        pass

    def answer(self, code, body=b"", headers=None):
        self.send_response(code)
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def repo(self, kind, org, name):
        path = os.path.join(ROOT, kind, org, name)
        return path if os.path.isdir(path) and ".." not in (org, name) else None

    def allowed(self, repo):
        gate = os.path.join(repo, ".gated")
        if not os.path.exists(gate):
            return True
        with open(gate) as f:
            token = f.read().strip()
        return self.headers.get("Authorization", "") == "Bearer " + token

    def do_GET(self):
        sys.stderr.write("GET %s auth=%s\n" % (self.path, "yes" if self.headers.get("Authorization") else "no"))
        sys.stderr.flush()
        parts = [unquote(p) for p in self.path.split("?")[0].split("/")[1:]]
        if len(parts) == 6 and parts[0] == "api" and parts[1] in ("models", "datasets") and parts[4] == "revision":
            repo = self.repo(parts[1], parts[2], parts[3])
            if repo is None:
                return self.answer(404, b'{"error": "Repository not found"}')
            if not self.allowed(repo):
                return self.answer(401, b'{"error": "gated"}')
            sha = commit_of(repo)
            if parts[5] not in ("main", sha):
                return self.answer(404, b'{"error": "Revision not found"}')
            names = files_of(repo)
            if os.path.exists(os.path.join(repo, ".siblings")):
                with open(os.path.join(repo, ".siblings")) as f:
                    names = json.load(f)
            body = {"id": parts[2] + "/" + parts[3], "sha": sha, "siblings": [{"rfilename": r} for r in names]}
            return self.answer(200, json.dumps(body).encode(), {"Content-Type": "application/json"})
        kind = "models"
        if parts and parts[0] == "datasets":
            kind, parts = "datasets", parts[1:]
        if len(parts) >= 5 and parts[2] == "resolve":
            repo = self.repo(kind, parts[0], parts[1])
            if repo is None:
                return self.answer(404)
            if not self.allowed(repo):
                return self.answer(401)
            sha = commit_of(repo)
            rel = "/".join(parts[4:])
            if parts[3] not in ("main", sha) or rel not in files_of(repo):
                return self.answer(404)
            with open(os.path.join(repo, rel), "rb") as f:
                data = f.read()
            return self.answer(200, data, {"X-Repo-Commit": sha, "ETag": '"%s"' % hashlib.sha256(data).hexdigest()})
        return self.answer(404)


ThreadingHTTPServer(("0.0.0.0", int(sys.argv[1])), Hub).serve_forever()
