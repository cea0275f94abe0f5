#!/usr/bin/env python3
"""Side-by-side performance harness: otelcol-modelplane ("ours") against the tools a user
would pick instead for the same node-local job, VictoriaMetrics' vmagent and Prometheus in
agent mode.

The job: scrape a fleet of local targets every --interval, keep only the series Modelplane's
mappings read, rename them to modelplane_* and remote-write them to a sink (a single-node
victoria-metrics). Each contestant runs alone, one after another; see README.md.

  peers.py run      the benchmark (default)
  peers.py configs  write the three generated configurations for one fleet, to read
  peers.py fleet    serve a fleet of pages alone (prints its ports as JSON), until killed

Python 3 standard library plus PyYAML (to read the mapping catalog). `make bench-peers` runs it
with Debian's vmagent, victoria-metrics and prometheus; bench/peers/README.md says what it
measures.
"""

import argparse
import http.server
import json
import math
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

try:
    import yaml
except ImportError:  # only the catalog needs it; configs are written as JSON (valid YAML)
    yaml = None

HERE = os.path.dirname(os.path.abspath(__file__))
CONTESTANTS = ("ours", "vmagent", "prom")
CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_SIZE = os.sysconf("SC_PAGE_SIZE")

# Target labels of the fleet, the same for every contestant.
CLUSTER, NODE = "bench", "bench-node"
IDENTITY_KEYS = ["cluster", "namespace", "deployment", "replica", "engine", "role", "node"]


# ----------------------------------------------------------------------------------------
# Fleet: one process serving every target's page on its own 127.0.0.1 port.

class Page:
    """An exposition page whose counters and histogram counts advance by n at scrape n."""

    SUFFIXES = ("_bucket", "_sum", "_count", "_total", "_created")

    def __init__(self, text):
        types = {}
        for line in text.splitlines():
            if line.startswith("# TYPE "):
                f = line.split()
                if len(f) >= 4:
                    types[f[2]] = f[3]

        def family(name):
            if name in types:
                return name, types[name], ""
            for s in self.SUFFIXES:
                if name.endswith(s) and name[: -len(s)] in types:
                    return name[: -len(s)], types[name[: -len(s)]], s
            return name, "untyped", ""

        samples = []
        min_le = {}
        for line in text.splitlines(keepends=True):
            body = line.rstrip("\n")
            if not body or body.startswith("#"):
                samples.append((line, None))
                continue
            if "{" in body:
                name = body[: body.index("{")]
                close = body.rindex("}")
                head, rest = body[: close + 1], body[close + 1:]
            else:
                name, _, rest = body.partition(" ")
                head, rest = name, " " + rest
            tokens = rest.split()
            if len(tokens) != 1:  # a timestamp: leave the line as it is
                samples.append((line, None))
                continue
            try:
                v = float(tokens[0])
            except ValueError:
                samples.append((line, None))
                continue
            fam, typ, suf = family(name)
            if typ == "histogram" and suf == "_bucket":
                m = re.search(r'le="([^"]+)"', head)
                if m:
                    try:
                        le = float(m.group(1))
                        if math.isfinite(le) and le > 0:
                            min_le[fam] = min(min_le.get(fam, le), le)
                    except ValueError:
                        pass
            samples.append((line, (head, v, tokens[0], fam, typ, suf)))

        self.parts, self.slots = [], []
        for line, s in samples:
            if s is None:
                self.parts.append(line.encode())
                continue
            head, v, raw, fam, typ, suf = s
            step = 0.0
            if math.isfinite(v):
                if typ == "counter" and suf != "_created":
                    step = 1.0
                elif typ == "histogram" and suf in ("_bucket", "_count"):
                    step = 1.0
                elif typ == "histogram" and suf == "_sum":
                    step = min_le.get(fam, 0.0) / 2  # each new observation in the first bucket
            if step == 0.0:
                self.parts.append(line.encode())
                continue
            self.parts.append((head + " ").encode())
            isint = v.is_integer() and step.is_integer() and not re.search(r"[.eE]", raw)
            self.slots.append((len(self.parts), v, step, isint))
            self.parts.append(raw.encode())
            self.parts.append(b"\n")
        self.static = b"".join(self.parts)  # scrape 0: the page as written

    def render(self, n):
        if n == 0 or not self.slots:
            return self.static
        parts = list(self.parts)
        for idx, base, step, isint in self.slots:
            v = base + n * step
            parts[idx] = (b"%d" % int(v)) if isint else repr(v).encode()
        return b"".join(parts)


def dcgm_page_for(text, j):
    """The dcgm-exporter page as target j serves it: GPUs 2j and 2j+1, their own UUIDs,
    PCI addresses and devices, so every target's series are distinct without its address."""
    uuids = sorted(set(re.findall(r'UUID="([^"]+)"', text)))
    pcis = sorted(set(re.findall(r'pci_bus_id="([^"]+)"', text)))
    gpus = sorted(set(re.findall(r'\bgpu="(\d+)"', text)), key=int)
    for g in gpus:
        n = 2 * j + int(g)
        text = text.replace('gpu="%s"' % g, 'gpu="@%d@"' % n)
        text = text.replace('device="nvidia%s"' % g, 'device="@nvidia%d@"' % n)
    text = re.sub(r'"@(nvidia)?(\d+)@"', lambda m: '"%s%s"' % (m.group(1) or "", m.group(2)), text)
    for u in uuids:
        text = text.replace('"%s"' % u, '"%s%04x"' % (u[:-4], (int(u[-4:], 16) + j) & 0xFFFF))
    for p in pcis:
        text = text.replace('"%s"' % p, '"%04X%s"' % (j, p[4:]))
    return text


def fleet_spec(engines, gpus):
    """The targets of fleet EngxGPU: (kind, page file, job, target labels, dcgm index)."""
    spec = []
    for i in range(engines):
        kind = "vllm" if i % 2 == 0 else "sglang"
        spec.append((kind, kind + ".prom", kind, {"engine": kind, "replica": "%s-%d" % (kind, i)}, None))
    spec.append(("gateway", "gateway-genai.prom", "gateway", {}, None))
    spec.append(("picker", "epp.prom", "picker", {}, None))
    for j in range(max(1, gpus // 2) if gpus else 0):
        spec.append(("dcgm-exporter", "dcgm-exporter.prom", "dcgm-exporter", {}, j))
    return spec


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as scrapers use it

    def do_GET(self):  # noqa: N802
        t = self.server.target
        with t["lock"]:
            n = t["n"]
            t["n"] += 1
        body = t["page"].render(n)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def serve_fleet(engines, gpus, pages_dir):
    pages = {}
    out, servers = [], []
    for kind, fname, job, labels, j in fleet_spec(engines, gpus):
        with open(os.path.join(pages_dir, fname), encoding="utf-8") as f:
            text = f.read()
        key = fname
        if j is not None:
            text = dcgm_page_for(text, j)
            key = "%s#%d" % (fname, j)
        if key not in pages:
            pages[key] = Page(text)
        srv = _Server(("127.0.0.1", 0), _Handler)
        srv.target = {"page": pages[key], "n": 0, "lock": threading.Lock()}
        servers.append(srv)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        out.append({"kind": kind, "job": job, "port": srv.server_address[1], "labels": labels})
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(json.dumps({"targets": out}), flush=True)
    while not stop.is_set():
        stop.wait(1)
    sys.stdout.flush()
    os._exit(0)  # the servers' threads are daemons: nothing to wait for


# ----------------------------------------------------------------------------------------
# Mapping catalog -> relabel rules (vmagent, Prometheus).

def load_catalog(catalog_dir):
    if yaml is None:
        sys.exit("peers.py: reading the mapping catalog needs PyYAML (python3 -m pip install pyyaml)")
    files = sorted(f for f in os.listdir(catalog_dir) if f.endswith(".yaml"))
    if not files:
        sys.exit("peers.py: no *.yaml in --catalog %s" % catalog_dir)
    mappings = []
    for f in files:  # the collector's run order: files sorted, documents in order
        with open(os.path.join(catalog_dir, f), encoding="utf-8") as fh:
            for doc in yaml.safe_load_all(fh):
                if not doc or doc.get("kind") != "MetricMapping":
                    continue
                ann = (doc.get("metadata") or {}).get("annotations") or {}
                # A fallback (modelplane.ai/fallback-for) maps a source only where the preferred
                # mapping's metrics are absent, which relabelling cannot say; the fleet's picker
                # page holds the preferred family, so the fallback is left out.
                on = (str(ann.get("modelplane.ai/builtin-default", "true")).lower() != "false"
                      and "modelplane.ai/fallback-for" not in ann)
                mappings.append({"name": doc["metadata"]["name"], "file": f, "default": on,
                                 "metrics": (doc.get("spec") or {}).get("metrics") or []})
    return [m for m in mappings if m["default"]]  # builtin: [default]


def rq(s):
    """Quote a literal for RE2 (Go's regexp.QuoteMeta)."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", s)


def relabel_rules(mappings):
    """metric_relabel_configs doing what modelplane_mapping does, as far as relabelling can:
    the scrape filter's keep rule, per entry its label rules then its rename, and the final
    drop of everything not modelplane_*. Returns (rules, notes on what is left out)."""
    sources, seen = [], set()
    for m in mappings:
        for e in m["metrics"]:
            s = e["from"]
            base = s[: -len("_total")] if s.endswith("_total") else s
            if base not in seen:
                seen.add(base)
                sources.append(rq(base))
    rules = [{"source_labels": ["__name__"], "action": "keep",
              "regex": "(?:%s)(?:_bucket|_sum|_count|_total|_created)?|modelplane_.*" % "|".join(sources)}]
    left_out = []
    for m in mappings:
        for e in m["metrics"]:
            f, to, part = e["from"], e["to"], e.get("part")
            if part == "Sum":
                series, rename, repl = rq(f) + "_sum", rq(f) + "_sum", to
            elif part == "Count":
                series, rename, repl = rq(f) + "_count", rq(f) + "_count", to
            else:
                series = rq(f) + "(?:_bucket|_sum|_count)?"
                rename, repl = rq(f) + "(_bucket|_sum|_count)?", to + "${1}"
            for lab in e.get("labels") or []:
                name = lab["name"]
                if "value" in lab:
                    rules.append({"source_labels": ["__name__"], "regex": series,
                                  "target_label": name, "replacement": str(lab["value"])})
                    continue
                src = lab["from"]
                rules.append({"source_labels": ["__name__", src], "separator": ";",
                              "regex": "(?:%s);(.*)" % series, "target_label": name,
                              "replacement": "${1}"})
                for old, new in (lab.get("values") or {}).items():
                    rules.append({"source_labels": ["__name__", src], "separator": ";",
                                  "regex": "(?:%s);%s" % (series, rq(str(old))),
                                  "target_label": name, "replacement": str(new)})
                if src != name:  # the source label goes, on this metric only
                    rules.append({"source_labels": ["__name__"], "regex": series,
                                  "target_label": src, "replacement": ""})
            rules.append({"source_labels": ["__name__"], "regex": rename,
                          "target_label": "__name__", "replacement": repl})
            if e.get("fromUnit"):
                left_out.append("%s -> %s (fromUnit %s): values and le bounds sent unconverted"
                                % (f, to, e["fromUnit"]))
    rules.append({"source_labels": ["__name__"], "regex": "modelplane_.*", "action": "keep"})
    return rules, left_out


# ----------------------------------------------------------------------------------------
# Configurations.

def dump(obj):
    obj = json.loads(json.dumps(obj))  # no shared objects, so no YAML anchors
    if yaml is not None:
        return yaml.safe_dump(obj, sort_keys=False, width=1000)
    return json.dumps(obj, indent=1)  # JSON is YAML too


def scrape_jobs(targets, interval, timeout, extra_rules):
    jobs = {}
    for t in targets:
        j = jobs.setdefault(t["job"], {"job_name": t["job"], "scrape_interval": "%gs" % interval,
                                       "scrape_timeout": "%gs" % timeout, "static_configs": []})
        sc = {"targets": ["127.0.0.1:%d" % t["port"]]}
        if t["labels"]:
            sc["labels"] = dict(t["labels"])
        j["static_configs"].append(sc)
    out = []
    for name, j in jobs.items():
        rules = []
        if name == "vllm":  # as the embedded default: vLLM's own engine label kept as engine_index
            rules += [{"source_labels": ["exported_engine"], "regex": "(.+)", "target_label": "engine_index"},
                      {"regex": "exported_engine", "action": "labeldrop"}]
        rules += extra_rules
        if rules:
            j["metric_relabel_configs"] = rules
        out.append(j)
    return out


def ours_config(targets, a, sink_port, telemetry_port, run_id):
    processors = {
        "memory_limiter": {"check_interval": "1s", "limit_percentage": 80, "spike_limit_percentage": 20},
        "resource": {"attributes": [{"key": "cluster", "value": CLUSTER, "action": "upsert"},
                                    {"key": "node", "value": NODE, "action": "upsert"}]},
        "modelplane_mapping": {"builtin": ["default"], "scrape_filter": not a.ours_no_scrape_filter,
                               "identity": {"keys": IDENTITY_KEYS}},
        "batch": {"timeout": "1s"},
    }
    return {
        "receivers": {a.ours_receiver: {"config": {
            "global": {"scrape_interval": "%gs" % a.interval, "scrape_timeout": "%gs" % a.timeout},
            "scrape_configs": scrape_jobs(targets, a.interval, a.timeout, [])}}},
        "processors": processors,
        "exporters": {"prometheus_remote_write": {  # as `default-config remote-write`
            "endpoint": "http://127.0.0.1:%d/api/v1/write" % sink_port,
            "external_labels": {"contestant": "ours", "run": run_id},
            "resource_constant_labels": {"included": ["*"]},
            "target_info": {"enabled": False},
            "disable_scope_info": True,
            "remote_write_queue": {"queue_size": 10000},
            "max_batch_request_parallelism": 1,
            "retry_on_failure": {"enabled": True, "initial_interval": "1s", "max_interval": "5s",
                                 "max_elapsed_time": 0},
            "timeout": "10m"}},
        "service": {
            "telemetry": {"metrics": {"readers": [{"pull": {"exporter": {"prometheus": {
                "host": "127.0.0.1", "port": telemetry_port}}}}]}},
            "pipelines": {"metrics": {"receivers": [a.ours_receiver],
                                      "processors": list(processors),
                                      "exporters": ["prometheus_remote_write"]}}},
    }


def peer_scrape_config(targets, a, rules, external_labels=None):
    g = {"scrape_interval": "%gs" % a.interval, "scrape_timeout": "%gs" % a.timeout}
    if external_labels:
        g["external_labels"] = external_labels
    return {"global": g, "scrape_configs": scrape_jobs(targets, a.interval, a.timeout, rules)}


def contestant_cmd(name, a, targets, rules, d, sink_port, run_id):
    """Writes the contestant's configuration under d; returns its command line."""
    sink = "http://127.0.0.1:%d/api/v1/write" % sink_port
    if name == "ours":
        path = os.path.join(d, "ours.yaml")
        with open(path, "w") as f:
            f.write(dump(ours_config(targets, a, sink_port, free_port(), run_id)))
        return [a.ours, "--config", "file:" + path]
    if name == "vmagent":
        path = os.path.join(d, "vmagent.yaml")
        with open(path, "w") as f:
            f.write(dump(peer_scrape_config(targets, a, rules)))
        tmp = os.path.join(d, "vmagent-data")
        os.makedirs(tmp, exist_ok=True)
        return [a.vmagent, "-promscrape.config=" + path, "-remoteWrite.url=" + sink,
                "-remoteWrite.tmpDataPath=" + tmp, "-httpListenAddr=127.0.0.1:%d" % free_port(),
                "-remoteWrite.label=contestant=vmagent", "-remoteWrite.label=run=" + run_id,
                "-remoteWrite.label=cluster=" + CLUSTER, "-remoteWrite.label=node=" + NODE]
    if name == "prom":
        path = os.path.join(d, "prometheus.yaml")
        cfg = peer_scrape_config(targets, a, rules, {"contestant": "prom", "run": run_id,
                                                     "cluster": CLUSTER, "node": NODE})
        cfg["remote_write"] = [{"url": sink}]
        with open(path, "w") as f:
            f.write(dump(cfg))
        tmp = os.path.join(d, "prom-agent")
        os.makedirs(tmp, exist_ok=True)
        return [a.prometheus, "--enable-feature=agent", "--config.file=" + path,
                "--storage.agent.path=" + tmp, "--web.listen-address=127.0.0.1:%d" % free_port()]
    raise ValueError(name)


# ----------------------------------------------------------------------------------------
# Processes: every one started here is tracked and ended by its PID.

PROCS = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(cmd, log_path, **kw):
    log = open(log_path, "ab")
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True, **kw)
    log.close()
    PROCS.append(p)
    return p


def stop(p, grace=20):
    if p.poll() is None:
        try:
            os.kill(p.pid, signal.SIGTERM)
            p.wait(grace)
        except subprocess.TimeoutExpired:
            os.kill(p.pid, signal.SIGKILL)
            p.wait()
        except ProcessLookupError:
            pass
    if p in PROCS:
        PROCS.remove(p)


def stop_all():
    for p in list(reversed(PROCS)):
        stop(p, grace=10)


def descendants(pid):
    kids, ppid = {}, {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open("/proc/%s/stat" % d) as f:
                    s = f.read()
                ppid[int(d)] = int(s[s.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                pass
    for c, p in ppid.items():
        kids.setdefault(p, []).append(c)
    out, todo = [], [pid]
    while todo:
        x = todo.pop()
        out.append(x)
        todo.extend(kids.get(x, []))
    return out


def cpu_seconds(pid):
    """utime+stime of pid and its live descendants, plus the children it has waited for."""
    total = 0
    for q in descendants(pid):
        try:
            with open("/proc/%d/stat" % q) as f:
                s = f.read()
        except OSError:
            continue
        f = s[s.rindex(")") + 2:].split()
        total += int(f[11]) + int(f[12]) + int(f[13]) + int(f[14])  # utime stime cutime cstime
    return total / CLK_TCK


def status_kib(pid, key):
    total = 0
    for q in descendants(pid):
        try:
            with open("/proc/%d/status" % q) as f:
                for line in f:
                    if line.startswith(key + ":"):
                        total += int(line.split()[1])
        except OSError:
            pass
    return total


def log_tail(path, n=15):
    try:
        with open(path, "rb") as f:
            return b"".join(f.readlines()[-n:]).decode(errors="replace")
    except OSError:
        return ""


# ----------------------------------------------------------------------------------------
# Sink.

class Sink:
    def __init__(self, binary, root):
        self.port = free_port()
        self.dir = os.path.join(root, "sink")
        self.log = os.path.join(root, "sink.log")
        self.p = spawn([binary, "-storageDataPath=" + self.dir, "-httpListenAddr=127.0.0.1:%d" % self.port,
                        "-retentionPeriod=1d", "-search.latencyOffset=0s", "-search.disableCache",
                        "-loggerLevel=WARN"], self.log)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.p.poll() is not None:
                raise RuntimeError("victoria-metrics exited:\n" + log_tail(self.log))
            try:
                if self.get("/health").strip() == b"OK":
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("victoria-metrics did not answer /health within 30 s")

    def get(self, path, **params):
        url = "http://127.0.0.1:%d%s" % (self.port, path)
        if params:
            url += "?" + urllib.parse.urlencode(params, doseq=True)
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.read()

    def flush(self):
        self.get("/internal/force_flush")

    def scalar(self, query, at=None):
        params = {"query": query}
        if at is not None:
            params["time"] = "%.3f" % at
        res = json.loads(self.get("/api/v1/query", **params))["data"]["result"]
        return float(res[0]["value"][1]) if res else 0.0

    def names(self, sel, start, end):
        return json.loads(self.get("/api/v1/label/__name__/values", **{
            "match[]": sel, "start": "%d" % start, "end": "%d" % (end + 1)}))["data"]


# ----------------------------------------------------------------------------------------
# One contestant run.

def run_one(name, a, targets, rules, sink, root, run_id, position):
    d = os.path.join(root, run_id)
    os.makedirs(d, exist_ok=True)
    cmd = contestant_cmd(name, a, targets, rules, d, sink.port, run_id)
    log = os.path.join(d, name + ".log")
    sel = '{contestant="%s",run="%s"}' % (name, run_id)
    mp = '{contestant="%s",run="%s",__name__=~"modelplane_.*"}' % (name, run_id)
    r = {"contestant": name, "position": position, "run": run_id}
    t_spawn = time.time()
    p = spawn(cmd, log)
    try:
        first = None
        while time.time() - t_spawn < a.startup_timeout:
            if p.poll() is not None:
                r["error"] = "exited with %s:\n%s" % (p.returncode, log_tail(log))
                return r
            sink.flush()
            if sink.scalar("count(%s)" % mp) > 0:
                first = time.time()
                break
            time.sleep(0.25)
        if first is None:
            r["error"] = "no series in the sink within %g s:\n%s" % (a.startup_timeout, log_tail(log))
            return r
        r["startup_s"] = first - t_spawn
        c0, t0 = cpu_seconds(p.pid), time.time()
        anon = 0.0
        while time.time() - t0 < a.window:  # anonymous memory has no high-water mark: sample it
            anon = max(anon, status_kib(p.pid, "RssAnon") / 1024)
            time.sleep(0.25)
        c1, t1 = cpu_seconds(p.pid), time.time()
        r["anon_mib"] = anon
        r["cpu_s"] = c1 - c0
        r["cpu_pct"] = 100 * (c1 - c0) / (t1 - t0)
        r["hwm_mib"] = status_kib(p.pid, "VmHWM") / 1024
        r["rss_mib"] = status_kib(p.pid, "VmRSS") / 1024
        if p.poll() is not None:
            r["error"] = "exited during the window:\n" + log_tail(log)
            return r
        time.sleep(a.lag)  # let the window's last batches arrive (Prometheus sends every 5 s)
        sink.flush()
        w = "%ds" % max(1, int(t1 - t0))
        r["series_mp"] = int(sink.scalar("count(last_over_time(%s[%s]))" % (mp, w), t1))
        r["series_all"] = int(sink.scalar("count(last_over_time(%s[%s]))" % (sel, w), t1))
        samples = sink.scalar("sum(count_over_time(%s[%s]))" % (mp, w), t1)
        expect = r["series_mp"] * (t1 - t0) / a.interval
        r["delivered_pct"] = 100 * samples / expect if expect else 0.0
        r["names"] = sorted(n for n in sink.names(mp, t0, t1))
        return r
    finally:
        stop(p)


# ----------------------------------------------------------------------------------------
# Output.

class Out:
    def __init__(self, path):
        self.f = open(path, "a") if path else None

    def __call__(self, s=""):
        print(s, flush=True)
        if self.f:
            self.f.write(s + "\n")
            self.f.flush()


def table(out, rows):
    out("| contestant | order | start-up s | CPU s | CPU % of a core | peak RSS MiB | peak anon MiB | RSS at end MiB | modelplane_* series | all series | samples delivered |")
    out("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "error" in r:
            out("| %s | %d | failed: %s | | | | | | | | |" % (
                r["contestant"], r["position"], r["error"].splitlines()[0]))
            continue
        out("| %s | %d | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f | %d | %d | %.0f%% |" % (
            r["contestant"], r["position"], r["startup_s"], r["cpu_s"], r["cpu_pct"],
            r["hwm_mib"], r["anon_mib"], r["rss_mib"], r["series_mp"], r["series_all"], r["delivered_pct"]))


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def ratios(runs, key, peer):
    """Per repetition ours/peer, both from the same repetition."""
    out = []
    for rep in runs:
        by = {r["contestant"]: r for r in rep if "error" not in r}
        if "ours" in by and peer in by and by[peer][key] > 0:
            out.append(by["ours"][key] / by[peer][key])
    return out


# ----------------------------------------------------------------------------------------

def find_binary(given, name, bin_dir):
    if given:
        return given
    p = os.path.join(bin_dir, name)
    if os.path.exists(p):
        return p
    return shutil.which(name) or p


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", nargs="?", default="run", choices=["run", "configs", "fleet"])
    ap.add_argument("--bin-dir", default=os.path.join(HERE, "bin"),
                    help="where binaries not named below are looked for first, then PATH (default: bin/ beside this script)")
    ap.add_argument("--ours", help="otelcol-modelplane binary")
    ap.add_argument("--vmagent", help="vmagent binary")
    ap.add_argument("--prometheus", help="prometheus binary (2.x, agent mode)")
    ap.add_argument("--victoria-metrics", dest="vm", help="victoria-metrics single-node binary (the sink)")
    ap.add_argument("--pages", default=os.path.join(HERE, "..", "..", "testdata", "exposition"),
                    help="folder of the exposition pages (default: testdata/exposition of this repository)")
    ap.add_argument("--catalog", default=os.path.join("processor", "modelplanemapping", "metricmapping", "catalog"),
                    help="the MetricMapping catalog (processor/modelplanemapping/metricmapping/catalog of otelcol-modelplane's source)")
    ap.add_argument("--fleets", default="8x8,64x8", help="comma-separated ExG: E engines (alternating vLLM/SGLang), G GPUs (G/2 dcgm-exporter pages)")
    ap.add_argument("--contestants", default=",".join(CONTESTANTS))
    ap.add_argument("--interval", type=float, default=2.0, help="scrape interval, seconds")
    ap.add_argument("--timeout", type=float, help="scrape timeout, seconds (default: the interval)")
    ap.add_argument("--window", "-W", type=float, default=40.0, help="measurement window, seconds")
    ap.add_argument("--reps", "-R", type=int, default=3, help="repetitions; the order rotates each time")
    ap.add_argument("--lag", type=float, default=7.0, help="wait after the window before counting in the sink")
    ap.add_argument("--settle", type=float, default=2.0, help="pause between contestant runs")
    ap.add_argument("--startup-timeout", type=float, default=90.0)
    ap.add_argument("--ours-no-scrape-filter", action="store_true",
                    help="run ours with scrape_filter: false (the embedded default has it on)")
    ap.add_argument("--ours-receiver", default="node_scrape", choices=["node_scrape", "prometheus"],
                    help="the receiver ours scrapes with (the embedded default's: node_scrape)")
    ap.add_argument("--workdir", help="parent of the temporary folder (default: the system's)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (configs, logs, sink data)")
    ap.add_argument("--out", help="also append the report to this file")
    ap.add_argument("--engines", type=int, default=8, help="fleet mode: engines")
    ap.add_argument("--gpus", type=int, default=8, help="fleet mode: GPUs")
    ap.add_argument("--dir", help="configs mode: where to write them")
    a = ap.parse_args(argv)
    a.timeout = a.timeout or min(a.interval, 10.0)
    if a.timeout > a.interval:
        ap.error("--timeout must not exceed --interval")
    a.ours = find_binary(a.ours, "otelcol-modelplane", a.bin_dir)
    a.vmagent = find_binary(a.vmagent, "vmagent", a.bin_dir)
    a.prometheus = find_binary(a.prometheus, "prometheus", a.bin_dir)
    a.vm = find_binary(a.vm, "victoria-metrics", a.bin_dir)
    a.contestants = [c.strip() for c in a.contestants.split(",") if c.strip()]
    for c in a.contestants:
        if c not in CONTESTANTS:
            ap.error("unknown contestant %r (want %s)" % (c, ", ".join(CONTESTANTS)))
    a.fleet_list = []
    for f in a.fleets.split(","):
        m = re.fullmatch(r"\s*(\d+)x(\d+)\s*", f)
        if not m:
            ap.error("bad fleet %r (want ExG, such as 8x8)" % f)
        a.fleet_list.append((int(m.group(1)), int(m.group(2))))
    return a


def start_fleet(a, engines, gpus, root):
    log = os.path.join(root, "fleet-%dx%d.log" % (engines, gpus))
    p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "fleet", "--engines", str(engines),
                          "--gpus", str(gpus), "--pages", a.pages], stdout=subprocess.PIPE,
                         stderr=open(log, "ab"), stdin=subprocess.DEVNULL, start_new_session=True)
    PROCS.append(p)
    line = p.stdout.readline()
    if not line:
        raise RuntimeError("fleet server failed:\n" + log_tail(log))
    return p, json.loads(line)["targets"]


def main(argv):
    a = parse_args(argv)
    if a.mode == "fleet":
        serve_fleet(a.engines, a.gpus, a.pages)
        return 0

    mappings = load_catalog(a.catalog)
    rules, left_out = relabel_rules(mappings)

    if a.mode == "configs":
        d = a.dir or "."
        os.makedirs(d, exist_ok=True)
        e, g = a.fleet_list[0]
        targets = [{"kind": k, "job": j, "port": 10000 + i, "labels": l}
                   for i, (k, _, j, l, _) in enumerate(fleet_spec(e, g))]
        for c in a.contestants:
            print(" ".join(contestant_cmd(c, a, targets, rules, d, 8428, "configs")))
        return 0

    missing = [b for c, b in (("ours", a.ours), ("vmagent", a.vmagent), ("prom", a.prometheus))
               if c in a.contestants and not os.access(b, os.X_OK)]
    if not os.access(a.vm, os.X_OK):
        missing.append(a.vm)
    if missing:
        sys.exit("peers.py: not executable: %s (see --bin-dir, --ours, --vmagent, --prometheus, --victoria-metrics)"
                 % ", ".join(missing))

    root = tempfile.mkdtemp(prefix="peers-", dir=a.workdir)
    out = Out(a.out)

    def on_signal(sig, _frame):
        raise KeyboardInterrupt("signal %d" % sig)
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    all_runs = {}
    try:
        sink = Sink(a.vm, root)
        out("# peers: otelcol-modelplane vs vmagent vs Prometheus agent")
        out()
        out("- started %s on %d CPUs; interval %gs, timeout %gs, window %gs, %d repetition(s), fleets %s"
            % (time.strftime("%Y-%m-%d %H:%M:%S %Z"), os.cpu_count(), a.interval, a.timeout,
               a.window, a.reps, a.fleets))
        out("- ours: %s (%s receiver, scrape_filter %s)" % (version(a.ours, ["--version"]), a.ours_receiver,
                                                           "off" if a.ours_no_scrape_filter else "on"))
        if "vmagent" in a.contestants:
            out("- vmagent: %s" % version(a.vmagent, ["-version"]))
        if "prom" in a.contestants:
            out("- prometheus: %s" % version(a.prometheus, ["--version"]))
        out("- sink: victoria-metrics %s" % version(a.vm, ["-version"]))
        out("- relabel rules for vmagent and prom: %d, from %d mappings (%s); left out, as relabelling cannot change values:"
            % (len(rules), len(mappings), ", ".join(m["name"] for m in mappings)))
        for n in left_out:
            out("  - " + n)
        out("- so vmagent and prom do less than ours: rename, keep, set and copy labels only. Besides the")
        out("  units above, they keep job and instance (ours reduces to identity labels), the gateway's")
        out("  otel_scope_* labels and le as the page writes it (\"240.0\"; ours \"240\"); the series count is the same.")
        out()
        for engines, gpus in a.fleet_list:
            fleet = "%dx%d" % (engines, gpus)
            fp, targets = start_fleet(a, engines, gpus, root)
            out("## fleet %s: %d targets (%d engines, 1 gateway, 1 picker, %d dcgm-exporter)"
                % (fleet, len(targets), engines, len(targets) - engines - 2))
            out()
            reps = []
            try:
                for rep in range(a.reps):
                    k = rep % len(a.contestants)
                    order = a.contestants[k:] + a.contestants[:k]
                    rows = []
                    for pos, c in enumerate(order, 1):
                        run_id = "%s-r%d-%s" % (fleet, rep + 1, c)
                        rows.append(run_one(c, a, targets, rules, sink, root, run_id, pos))
                        time.sleep(a.settle)
                    rows.sort(key=lambda r: a.contestants.index(r["contestant"]))
                    out("### %s, repetition %d (order %s)" % (fleet, rep + 1, ", ".join(order)))
                    out()
                    table(out, rows)
                    for r in rows:
                        if "error" in r:
                            out()
                            out("```\n%s: %s\n```" % (r["contestant"], r["error"]))
                    parity(out, rows)
                    out()
                    reps.append(rows)
            finally:
                stop(fp)
            all_runs[fleet] = reps
        summary(out, a, all_runs)
    except KeyboardInterrupt as e:
        out("\ninterrupted (%s); stopping everything this harness started" % (e or "Ctrl-C"))
        return 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_all()
        if a.keep:
            print("kept %s" % root, file=sys.stderr)
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def version(binary, flag):
    try:
        r = subprocess.run([binary] + flag, capture_output=True, text=True, timeout=20)
        s = (r.stdout + r.stderr).strip().splitlines()
        return s[0].strip() if s else "(prints no version)"
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def parity(out, rows):
    ok = [r for r in rows if "error" not in r]
    if len(ok) < 2:
        return
    base = next((r for r in ok if r["contestant"] == "ours"), ok[0])
    for r in ok:
        if r is base:
            continue
        only_b = sorted(set(base["names"]) - set(r["names"]))
        only_r = sorted(set(r["names"]) - set(base["names"]))
        if only_b or only_r:
            out()
            out("metric names: only %s: %s; only %s: %s" % (
                base["contestant"], ", ".join(only_b) or "none", r["contestant"], ", ".join(only_r) or "none"))


def summary(out, a, all_runs):
    out("## Medians")
    out()
    out("| fleet | contestant | start-up s | CPU s | CPU % of a core | peak RSS MiB | peak anon MiB | modelplane_* series |")
    out("|---|---|---|---|---|---|---|---|")
    for fleet, reps in all_runs.items():
        for c in a.contestants:
            rs = [r for rep in reps for r in rep if r["contestant"] == c and "error" not in r]
            if not rs:
                out("| %s | %s | failed | | | | | |" % (fleet, c))
                continue
            out("| %s | %s | %.1f | %.2f | %.1f | %.1f | %.1f | %d |" % (
                fleet, c, med([r["startup_s"] for r in rs]), med([r["cpu_s"] for r in rs]),
                med([r["cpu_pct"] for r in rs]), med([r["hwm_mib"] for r in rs]),
                med([r["anon_mib"] for r in rs]),
                med([r["series_mp"] for r in rs])))
    out()
    all_reps = [rep for reps in all_runs.values() for rep in reps]

    def line(reps):
        parts = []
        for key, label in (("cpu_s", "cpu"), ("hwm_mib", "rss"), ("anon_mib", "anon")):
            xs = []
            for peer, short in (("vmagent", "vmagent"), ("prom", "prom")):
                v = med(ratios(reps, key, peer))
                xs.append("ours/%s=%s" % (short, "n/a" if math.isnan(v) else "%.2f" % v))
            parts.append("%s %s" % (label, " ".join(xs)))
        return " ".join(parts)

    out("Median over repetitions of ours/peer, each pair from the same repetition:")
    out()
    out("```")
    for fleet, reps in all_runs.items():
        out("ratio[%s] %s" % (fleet, line(reps)))
    out("ratio %s" % line(all_reps))
    out("```")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
