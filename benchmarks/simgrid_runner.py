"""Run a flow problem in SimGrid and print the results as JSON.

Run by ``benchmarks/simgrid_compare.py`` (and by ``tests/test_simgrid.py``) under the
Python that has Debian's ``python3-simgrid`` (``/usr/bin/python3``); it reads a JSON
problem on stdin:

    {"links": [{"name": "a->b", "bandwidth": bytes/s, "latency": s}, ...],
     "flows": [{"src": "a", "dst": "b", "nbytes": float, "start": s,
                "deps": [flow indices], "route": ["a->x", "x->b"]}, ...]}

Every directed resource of our graph is one SHARED SimGrid link, and every flow is one
SimGrid communication from a host "src" to a host "dst" over exactly the route we give,
so both simulators share the routing. SimGrid runs its max-min model CM02 with
TCP-gamma 0 (no window limit) and no cross-traffic.

Latency. CM02 weights each flow's share of a link by the sum of the latencies on its
route (long-RTT flows get less, as with TCP), while ``interconnect.netsim`` shares by
plain max-min and adds a flow's route latency after its bytes are through. To compare
the two solvers on the same model, the links here have latency 0 inside SimGrid (which
makes CM02 plain max-min) and each flow's route latency is added as a delay after its
transfer, before it counts as arrived; a flow starts after its start time and after
every dependency has arrived.

Output: {"finish": [completion time of each flow], "makespan": s, "wall": s}.
"""

import json
import sys
import time


def main():
    problem = json.load(sys.stdin)
    import simgrid as sg

    e = sg.Engine(["simgrid_runner", "--cfg=network/model:CM02", "--cfg=network/TCP-gamma:0",
                   "--cfg=network/crosstraffic:0", "--log=root.thres:critical", "--cfg=contexts/factory:thread"])
    t0 = time.perf_counter()
    zone = sg.NetZone.create_full_zone("world")
    hosts = {}
    endpoints = sorted({f["src"] for f in problem["flows"]} | {f["dst"] for f in problem["flows"]})
    for name in endpoints:
        hosts[name] = zone.create_host(name, 1e9)
    links = {}
    for spec in problem["links"]:
        # latency 0 inside SimGrid: see the module docstring
        link = zone.create_link(spec["name"], float(spec["bandwidth"]))
        link.set_latency(0.0)
        links[spec["name"]] = link.seal()
    latency = {spec["name"]: float(spec["latency"]) for spec in problem["links"]}
    routes = {}
    for f in problem["flows"]:
        key = (f["src"], f["dst"])
        route = tuple(f["route"])
        if key in routes and routes[key] != route:
            raise SystemExit(f"flows {key} use two different routes; SimGrid's full zone keeps one route per pair")
        routes[key] = route
    for (src, dst), route in routes.items():
        zone.add_route(hosts[src].netpoint, hosts[dst].netpoint, None, None,
                       [sg.LinkInRoute(links[name]) for name in route], False)
    zone.seal()

    flows = problem["flows"]
    n = len(flows)
    dependents = [[] for _ in range(n)]
    for i, f in enumerate(flows):
        for d in f["deps"]:
            dependents[d].append(i)
    sems = [sg.Semaphore(0) for _ in range(n)]
    finish = [None] * n

    def sender(i):
        f = flows[i]
        for _d in f["deps"]:
            sems[i].acquire()
        if sg.Engine.clock < f["start"]:
            sg.this_actor.sleep_until(f["start"])
        sg.Mailbox.by_name(f"flow{i}").put(i, int(round(f["nbytes"])))

    def receiver(i):
        sg.Mailbox.by_name(f"flow{i}").get()
        delay = sum(latency[name] for name in flows[i]["route"])
        if delay > 0:
            sg.this_actor.sleep_for(delay)
        finish[i] = sg.Engine.clock
        for j in dependents[i]:
            sems[j].release()

    for i, f in enumerate(flows):
        sg.Actor.create(f"recv{i}", hosts[f["dst"]], receiver, i)
        sg.Actor.create(f"send{i}", hosts[f["src"]], sender, i)
    e.run()
    wall = time.perf_counter() - t0
    json.dump({"finish": finish, "makespan": max(finish) if finish else 0.0, "wall": wall}, sys.stdout)


if __name__ == "__main__":
    main()
