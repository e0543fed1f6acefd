"""Past one machine: export a topology and a simulation to SimGrid, and run it there.

:mod:`interconnect.netsim` is a Python flow simulator; SimGrid (Casanova et al. 2014) is a
compiled simulation framework whose flow-level network models are validated against
packet-level simulation (Velho et al. 2013), with host CPUs, disks, MPI replay and
failures besides. A reader who outgrows ``netsim`` can take the same topology, the same
routes and the same flows there:

* :func:`to_platform_xml` writes a SimGrid platform (XML, DTD 4.1): every rank a host,
  every direction of every edge a ``SHARED`` link with the edge's bandwidth (bytes/s per
  direction) and latency, and one explicit route per (src, dst) pair: the path ``netsim``'s
  own router chose, so both engines move the bytes over the same links.
* :func:`to_replay` writes a Python script using SimGrid's s4u API that replays the flows:
  each flow is one communication from its source host to its destination host, started at
  its start time once every flow it depends on has arrived; it prints every flow's arrival
  time and the makespan as JSON.
* :func:`export` writes both into a directory; :func:`run_simgrid` runs the script under a
  Python that has SimGrid's bindings (``SIMGRID_PYTHON``, default ``/usr/bin/python3``,
  where Debian's ``python3-simgrid`` puts them) and returns what it printed;
  :func:`compare` does all of it and reports how far the two engines are apart.

Latency. SimGrid's CM02 model shares a link among flows in inverse proportion to their
route latency (as TCP does), while ``netsim`` shares by plain max-min and adds a flow's
route latency after its last byte. The replay therefore sets every link's latency to 0
inside SimGrid (which makes CM02 plain max-min) and waits each flow's route latency after
its transfer before it counts as arrived: the two engines then solve the same model, and
agree to about 1e-15 relative on the makespan. ``python3 replay.py --simgrid-latency``
keeps the platform's latencies and SimGrid's own latency model instead. SimGrid runs with
CM02, TCP-gamma 0 (no window limit) and no cross-traffic (acknowledgements do not load the
reverse direction), as ``netsim`` assumes.

References
----------
H. Casanova, A. Giersch, A. Legrand, M. Quinson and F. Suter, "Versatile, scalable, and
accurate simulation of distributed applications and platforms", JPDC 74(10):2899-2917, 2014.
P. Velho, L. Mello Schnorr, H. Casanova and A. Legrand, "On the validity of flow-level TCP
network models for grid and cloud simulations", ACM TOMACS 23(4), 2013.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile

import numpy as np

from ..topology.paths import endpoints
from .engine import Flow, SimResult
from .routing import _check_routing, _Net, _route

__all__ = ["to_platform_xml", "to_replay", "export", "run_simgrid", "simgrid_available", "compare",
           "SIMGRID_PYTHON"]

#: The Python that can ``import simgrid`` (Debian's ``python3-simgrid`` installs the bindings
#: for the system Python); override with the environment variable of the same name.
SIMGRID_PYTHON = os.environ.get("SIMGRID_PYTHON", "/usr/bin/python3")

_PLATFORM, _REPLAY = "platform.xml", "replay.py"


def _names(net):
    """The SimGrid name of every node (its ``str``), checked to be distinct."""
    names = [str(n) for n in net.nodes]
    if len(set(names)) != len(names):
        seen = {}
        for n, s in zip(net.nodes, names):
            if s in seen:
                raise ValueError(f"g: nodes {seen[s]!r} and {n!r} have the same name {s!r} as text; "
                                 "SimGrid names hosts and links by text, so node names must differ as text")
            seen[s] = n
    return names


def _quoteattr(text):
    """``text`` as a double-quoted XML attribute value (``>`` left as is, so ``a->b`` reads as written)."""
    for a, b in (("&", "&amp;"), ("<", "&lt;"), ('"', "&quot;"), ("\n", "&#10;"), ("\r", "&#13;"), ("\t", "&#9;")):
        text = text.replace(a, b)
    return f'"{text}"'


def _link_name(names, a, b):
    return f"{names[a]}->{names[b]}"


def _problem(g, run=None, routing="shortest", seed=0):
    """Hosts, links, flows and routes of a simulation, as SimGrid will see them (internal).

    ``run`` is a :class:`SimResult`, anything with a ``.sim`` (a CollectiveResult), a
    sequence of :class:`Flow`, or None (then every ordered pair of ``endpoints(g)`` gets a
    route and there are no flows).
    """
    net = _Net(g)
    names = _names(net)
    routing, seed = _check_routing(routing, seed)
    sim = getattr(run, "sim", run)
    if sim is None:
        hosts = [net.index[h] for h in (endpoints(g) or list(g.nodes))]
        src = np.repeat(np.array(hosts, dtype=np.int64), len(hosts))
        dst = np.tile(np.array(hosts, dtype=np.int64), len(hosts))
        keep = src != dst
        src, dst = src[keep], dst[keep]
        table, path_id = _route(net, src, dst, "shortest", 0)
        flows = None
    elif isinstance(sim, SimResult):
        if len(sim.nodes) != len(net.nodes) or any(a != b for a, b in zip(sim.nodes, net.nodes)):
            raise ValueError("run was simulated on another graph than g; export the graph it ran on")
        src, dst = np.asarray(sim.src_index), np.asarray(sim.dst_index)
        table, path_id = list(sim.path_table), np.asarray(sim.path_id)
        if sim.dep_ptr is None:
            raise ValueError("run has no record of its dependencies; simulate it again with this version")
        release = sim.release
        deps = [sim.dep_idx[sim.dep_ptr[i]:sim.dep_ptr[i + 1]].tolist() for i in range(sim.n_flows)]
        flows = list(zip(sim.nbytes.tolist(), release.tolist(), deps))
    else:
        fl = []
        for i, f in enumerate(run):
            if isinstance(f, Flow):
                fl.append(f)
            elif isinstance(f, (tuple, list)):
                fl.append(Flow(*f))
            else:
                raise ValueError(f"run[{i}]={f!r} is not a Flow; give a SimResult, a CollectiveResult or Flows")
        src = np.array([net.node_index(f"run[{i}].src", f.src) for i, f in enumerate(fl)], dtype=np.int64)
        dst = np.array([net.node_index(f"run[{i}].dst", f.dst) for i, f in enumerate(fl)], dtype=np.int64)
        for i, f in enumerate(fl):
            for d in f.deps:
                if not 0 <= d < len(fl) or d == i:
                    raise ValueError(f"run[{i}].deps={f.deps!r} contains {d}; deps must index other flows")
        table, path_id = _route(net, src, dst, routing, seed)
        flows = [(f.nbytes, f.start, list(f.deps)) for f in fl]
    routes = {}
    for i, (s, d) in enumerate(zip(src.tolist(), dst.tolist())):
        res = table[path_id[i]][1]
        if not res:
            continue
        key = (names[s], names[d])
        route = tuple(_link_name(names, net.res_u[r], net.res_v[r]) for r in res)
        if routes.setdefault(key, route) != route:
            raise ValueError(f"flows from {key[0]!r} to {key[1]!r} take two different paths (ECMP); a SimGrid "
                             "platform has one route per pair of hosts, so give each pair one path")
    host_idx = sorted(set(src.tolist()) | set(dst.tolist()))
    links = [(_link_name(names, a, b), float(c), float(lat))
             for a, b, c, lat in zip(net.res_u.tolist(), net.res_v.tolist(), net.cap.tolist(), net.lat.tolist())]
    out = {"name": net.name, "hosts": [names[h] for h in host_idx], "links": links, "routes": routes}
    if flows is not None:
        out["flows"] = [
            {"src": names[s], "dst": names[d], "nbytes": nb, "start": st, "deps": dp,
             "delay": float(net.lat[list(table[path_id[i]][1])].sum()) if table[path_id[i]][1] else 0.0}
            for i, (s, d, (nb, st, dp)) in enumerate(zip(src.tolist(), dst.tolist(), flows))
        ]
    return out


def _platform_text(p):
    lines = ['<?xml version="1.0"?>',
             '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
             '<platform version="4.1">',
             f"  <!-- exported by interconnect.netsim.simgrid from {p['name'] or 'a graph'}: "
             f"{len(p['hosts'])} hosts, {len(p['links'])} links (one per direction of each edge), "
             f"{len(p['routes'])} routes (netsim's paths) -->",
             '  <zone id="world" routing="Full">']
    lines += [f'    <host id={_quoteattr(h)} speed="1Gf"/>' for h in p["hosts"]]
    lines += [f'    <link id={_quoteattr(name)} bandwidth="{bw!r}Bps" latency="{lat!r}s"/>'
              for name, bw, lat in p["links"]]
    for (s, d), route in p["routes"].items():
        lines.append(f'    <route src={_quoteattr(s)} dst={_quoteattr(d)} symmetrical="NO">')
        lines += [f"      <link_ctn id={_quoteattr(name)}/>" for name in route]
        lines.append("    </route>")
    lines += ["  </zone>", "</platform>", ""]
    return "\n".join(lines)


def to_platform_xml(g, run=None, routing="shortest", seed=0):
    """A SimGrid platform (XML text) of a topology, routed as ``netsim`` routes it.

    Parameters
    ----------
    g : networkx.Graph
        Topology (graph contract: edge ``bandwidth`` bytes/s per direction, ``latency`` s).
    run : SimResult, CollectiveResult or sequence of Flow, optional
        Routes for the (src, dst) pairs of these flows, on the paths they took (or, for
        Flows, the paths :func:`~interconnect.netsim.simulate` would give them). Default:
        a route between every ordered pair of :func:`~interconnect.topology.endpoints`.
    routing, seed
        For a sequence of Flows, as for :func:`~interconnect.netsim.simulate`.

    Returns
    -------
    str
        The XML: one host per rank (speed 1 GFLOP/s, unused), two ``SHARED`` links per
        edge named ``"u->v"`` and ``"v->u"``, one route per ordered pair (``symmetrical="NO"``).

    Raises
    ------
    ValueError
        If two nodes have the same name as text, or two flows between one pair of hosts
        took different paths (one route per pair is all a SimGrid ``Full`` zone keeps).

    Examples
    --------
    >>> import networkx as nx
    >>> g = nx.Graph(); g.add_edge("a", "b", bandwidth=1e9, latency=1e-6)
    >>> print(to_platform_xml(g, [Flow("a", "b", 1e6)]).splitlines()[7])
        <link id="a->b" bandwidth="1000000000.0Bps" latency="1e-06s"/>
    """
    return _platform_text(_problem(g, run, routing, seed))


_RUNNER = r'''#!/usr/bin/env python3
"""Replay, in SimGrid, flows exported by interconnect.netsim (%(what)s).

Run with a Python that has SimGrid's bindings (Debian: apt-get install python3-simgrid):

    python3 replay.py                    # netsim's latency rule (links at latency 0, each
                                         # flow's route latency waited after its transfer)
    python3 replay.py --simgrid-latency  # the platform's latencies in SimGrid's own model

Prints JSON: {"arrival": [each flow's arrival, s], "makespan": s, "wall": s}.
"""

import json
import os
import sys
import time

import simgrid as sg

HERE = os.path.dirname(os.path.abspath(__file__))
# each flow: source and destination host, bytes, earliest start (s), the flows it waits
# for (indices in this list), and its route latency (s)
FLOWS = [
%(flows)s
]


def main(argv):
    own_latency = "--simgrid-latency" in argv
    e = sg.Engine(["replay", "--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0",
                   "--cfg=network/crosstraffic:0", "--cfg=contexts/factory:thread",
                   "--log=root.thres:critical"])
    e.load_platform(os.path.join(HERE, %(platform)r))
    if not own_latency:
        for link in e.all_links:
            link.set_latency(0.0)
    n = len(FLOWS)
    dependents = [[] for _ in range(n)]
    for i, f in enumerate(FLOWS):
        for d in f["deps"]:
            dependents[d].append(i)
    ready = [sg.Semaphore(0) for _ in range(n)]
    arrival = [None] * n

    def flow(i):
        f = FLOWS[i]
        for _ in f["deps"]:
            ready[i].acquire()
        if sg.Engine.clock < f["start"]:
            sg.this_actor.sleep_until(f["start"])
        nbytes = int(round(f["nbytes"]))
        if nbytes > 0 and f["src"] != f["dst"]:
            sg.Comm.sendto(sg.Host.by_name(f["src"]), sg.Host.by_name(f["dst"]), nbytes)
        if not own_latency and f["delay"] > 0:
            sg.this_actor.sleep_for(f["delay"])
        arrival[i] = sg.Engine.clock
        for j in dependents[i]:
            ready[j].release()

    for i, f in enumerate(FLOWS):
        sg.Actor.create(f"flow{i}", sg.Host.by_name(f["src"]), flow, i)
    t0 = time.perf_counter()
    e.run()
    wall = time.perf_counter() - t0
    print(json.dumps({"arrival": arrival, "makespan": max(arrival) if arrival else 0.0, "wall": wall}))


if __name__ == "__main__":
    main(sys.argv[1:])
'''


def _replay_text(p):
    if "flows" not in p:
        raise ValueError("run=None has no flows to replay; give a SimResult, a CollectiveResult or Flows")
    # one JSON object a line: with strings, numbers and lists only, JSON is a Python literal
    flows = "\n".join(f"    {json.dumps(f)}," for f in p["flows"])
    what = f"{len(p['flows'])} flows on {p['name'] or 'a graph'}"
    return _RUNNER % {"what": what, "flows": flows, "platform": _PLATFORM}


def to_replay(g, run, routing="shortest", seed=0):
    """A Python script (text) that replays ``run``'s flows in SimGrid on :func:`to_platform_xml`'s platform.

    Parameters
    ----------
    g : networkx.Graph
        The topology ``run`` was simulated on.
    run : SimResult, CollectiveResult or sequence of Flow
        The flows, their sizes, start times and dependencies (a collective's schedule).
    routing, seed
        For a sequence of Flows, as for :func:`~interconnect.netsim.simulate`.

    Returns
    -------
    str
        A script for SimGrid's s4u Python API: one actor per flow, on its source host,
        waits for the flows it depends on, sends its bytes with ``Comm.sendto`` over the
        platform's route, waits its route latency and prints (as JSON) every flow's
        arrival time and the makespan. It reads ``platform.xml`` beside itself.
    """
    return _replay_text(_problem(g, run, routing, seed))


def export(g, run, directory, routing="shortest", seed=0):
    """Write ``platform.xml`` and ``replay.py`` for ``run`` on ``g`` into ``directory``.

    Parameters
    ----------
    g : networkx.Graph
    run : SimResult, CollectiveResult or sequence of Flow
        As for :func:`to_replay`.
    directory : str or path-like
        Created if missing.
    routing, seed
        For a sequence of Flows, as for :func:`~interconnect.netsim.simulate`.

    Returns
    -------
    dict
        ``{"platform": path, "replay": path, "hosts": int, "links": int, "routes": int,
        "flows": int}``.

    Examples
    --------
    >>> import tempfile, networkx as nx
    >>> g = nx.Graph(); g.add_edge("a", "b", bandwidth=1e9, latency=1e-6)
    >>> info = export(g, [Flow("a", "b", 1e6)], tempfile.mkdtemp())
    >>> info["hosts"], info["links"], info["routes"], info["flows"]
    (2, 2, 1, 1)
    """
    p = _problem(g, run, routing, seed)
    directory = os.fspath(directory)
    os.makedirs(directory, exist_ok=True)
    platform = os.path.join(directory, _PLATFORM)
    replay = os.path.join(directory, _REPLAY)
    with open(platform, "w", encoding="utf-8") as fh:
        fh.write(_platform_text(p))
    with open(replay, "w", encoding="utf-8") as fh:
        fh.write(_replay_text(p))
    return {"platform": platform, "replay": replay, "hosts": len(p["hosts"]), "links": len(p["links"]),
            "routes": len(p["routes"]), "flows": len(p["flows"])}


def simgrid_available(python=None):
    """True if ``python`` (default :data:`SIMGRID_PYTHON`) can ``import simgrid``."""
    python = python or SIMGRID_PYTHON
    if not (os.path.exists(python) or shutil.which(python)):
        return False
    try:
        r = subprocess.run([python, "-c", "import simgrid"], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return r.returncode == 0


def run_simgrid(directory, python=None, simgrid_latency=False, timeout=600):
    """Run an exported ``replay.py`` in SimGrid and return what it printed.

    Parameters
    ----------
    directory : str or path-like
        Where :func:`export` wrote ``platform.xml`` and ``replay.py``.
    python : str, optional
        A Python with SimGrid's bindings; default :data:`SIMGRID_PYTHON`.
    simgrid_latency : bool
        Keep the platform's latencies in SimGrid's own model instead of ``netsim``'s rule.
    timeout : float
        Seconds before giving up.

    Returns
    -------
    dict
        ``{"arrival": [s per flow], "makespan": s, "wall": s}`` (``wall``: SimGrid's run,
        without start-up).

    Raises
    ------
    RuntimeError
        If the script fails (for example, SimGrid is not installed for ``python``).
    """
    python = python or SIMGRID_PYTHON
    cmd = [python, os.path.join(os.fspath(directory), _REPLAY)] + (["--simgrid-latency"] if simgrid_latency else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"SimGrid replay failed under {python} (is python3-simgrid installed?):\n"
                           f"{r.stderr[-2000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def compare(g, run, directory=None, python=None):
    """Run ``run``'s flows in SimGrid and measure how far the two engines are apart.

    Parameters
    ----------
    g : networkx.Graph
        The topology ``run`` was simulated on.
    run : SimResult or CollectiveResult
        A ``netsim`` simulation.
    directory : str, optional
        Where to export (default: a temporary directory, removed afterwards).
    python : str, optional
        As for :func:`run_simgrid`.

    Returns
    -------
    dict
        ``flows``, ``netsim`` and ``simgrid`` (makespans, s), ``makespan_rel_err``,
        ``max_flow_rel_err`` (largest relative difference of one flow's arrival) and
        ``simgrid_wall`` (s).
    """
    sim = getattr(run, "sim", run)
    if not isinstance(sim, SimResult):
        raise ValueError(f"run={run!r} is not a netsim simulation; give a SimResult or a CollectiveResult")
    with tempfile.TemporaryDirectory() as tmp:
        export(g, run, directory or tmp)
        out = run_simgrid(directory or tmp, python)
    ours = np.asarray(sim.arrival, dtype=float)
    theirs = np.asarray(out["arrival"], dtype=float)
    rel = np.abs(theirs - ours) / np.maximum(np.abs(ours), 1e-300)
    return {"flows": int(ours.size), "netsim": float(sim.makespan), "simgrid": float(out["makespan"]),
            "makespan_rel_err": abs(out["makespan"] - sim.makespan) / sim.makespan if sim.makespan > 0 else 0.0,
            "max_flow_rel_err": float(rel.max()) if rel.size else 0.0, "simgrid_wall": float(out["wall"])}
