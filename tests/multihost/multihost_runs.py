#!/usr/bin/env python3
"""tests/multihost/multihost_runs.py BUILD_DIR TMPDIR — the runs of multihost_test.sh.

Started on node1 of the simulated cluster. Takes every MPI test of BUILD_DIR's CTest suite that
starts a program with `ampirun -np P --vp V` (directly, or through expect_run.sh /
no_survivors.sh, which check status, output and leftovers) and runs the same program, arguments,
environment and checks with `srun --mpi=pmix -N NHOSTS` instead, so that its ranks sit on
several hosts:
  - a test judged by its exit status alone runs twice: 4 Slurm tasks (4 ranks) and 4 tasks with
    AMPI_VP=8 (8 virtual ranks, 2 per process);
  - a test whose expected output names ranks (a regular expression, an expect_run check) keeps
    its own number of ranks, P*V, as AMPI_VP over one task per host.
Left out: the labels soak, gpu, sanitizer, valgrind, slurm (their own runs), single-rank tests,
ampirun options other than -np/--vp/-x (they test the launcher), and checks that name ampirun.
An expected status of 128+ (a signal under ampirun) becomes "non-zero": srun reports a task's
signal its own way. Prints one PASS/FAIL line per run and a summary; exits 1 if any run failed.
AMPI_MULTIHOST_ONLY=REGEX keeps the runs whose names match.

The cluster's own daemons are watched (their pid files under TMPDIR/run): when one of them dies
(CI saw Slurm 22.05's slurmd on node2 abort with "malloc(): unaligned tcache chunk detected" in
its launch path, after which every later case waited for a DOWN node until CTest's limit), the
runs in flight are stopped, no new one starts, and the script exits 3 so that multihost_test.sh
restarts the daemons and runs again what did not pass (the names of passed runs are appended to
TMPDIR/passed, which a new run skips). AMPI_MULTIHOST_BUDGET (seconds, default 1100: under
CTest's 1500 s limit, so the cluster is always stopped by the script) ends the runs that have not
started by then with a failure.
"""
import concurrent.futures
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
import warnings

warnings.simplefilter("ignore", FutureWarning)  # CTest regexes such as "[[:space:]]"

LEFT_OUT_LABELS = {"soak", "gpu", "sanitizer", "valgrind", "slurm", "multihost"}
# Tests whose checks hold only with every rank in one process, by design.
# priv_auto counts the distinct addresses of main in the job; tests/smp's programs check what the
# PEs of one process do (threads per process, messages that stay in it): srun relaunches them
# with one PE per process.
LEFT_OUT_TESTS = re.compile(r"^(priv_auto|smp_\w+)\.")
# Known open bugs across hosts, left out with their reason printed (to be fixed, then removed).
# Left out across hosts, with the reason printed: one-sided polling over UCX's TCP emulation is
# correct but was slow on a loaded machine. Each Fetch_and_op there was four round trips (lock
# word, get, release, flush) served by the target's PE when it drives the network; with load 17
# on the 2-core VM, rma_atomic.np2.vp4.tcp took 19-48 s of its 80 s, rma_poll 47-102 s with 4
# ranks and past 80 s with 32. Integer fetch-and-add is now one network atomic (src/rma/
# backend_net.cpp), not yet timed here: to be put back once measured. (Their hang in the UCX mode
# on one host, a rank that never yielded at MPI_Win_flush, is fixed: they run in the .ucx and
# .tcp layouts on one host.)
KNOWN = {
    "rma_atomic.np2.vp4.tcp": "one-sided operations through UCX's TCP emulation between hosts: "
                              "19-48 s of the 80 s limit on the loaded VM",
}
for _t in ("vp1", "vp2", "vp8", "np2.vp2", "np2.vp8", "np3.vp6", "np2.vp4.ucx", "np2.vp8.ucx",
           "np3.vp6.ucx", "np2.vp8.tcp"):
    KNOWN[f"rma_poll.{_t}"] = ("a ring of turns polled with Fetch_and_op + flush over UCX's TCP "
                               "emulation between hosts: 47-102 s with 4 ranks on the loaded VM")
WRAPPERS = ("expect_run.sh", "no_survivors.sh")


class Cluster:
    """The daemons of the simulated cluster, watched through their pid files."""

    def __init__(self, tmp, nhosts):
        run = os.path.join(tmp, "run")
        self.pidfiles = [(os.path.join(run, "slurmctld.pid"), "slurmctld")]
        self.pidfiles += [(os.path.join(run, f"slurmd-node{i}.pid"), "slurmd")
                          for i in range(1, nhosts + 1)]
        self.broken = threading.Event()
        self.why = ""
        self.lock = threading.Lock()

    def dead(self):
        """The daemons whose process is gone: a list of their pid files' names."""
        out = []
        for path, comm in self.pidfiles:
            try:
                with open(path) as f:
                    pid = int(f.read().strip())
                with open(f"/proc/{pid}/comm") as f:
                    if f.read().startswith(comm):
                        continue
            except (OSError, ValueError):
                pass
            out.append(os.path.basename(path)[:-len(".pid")])
        return out

    def check(self):
        """True while every daemon runs; otherwise marks the cluster broken (once)."""
        if self.broken.is_set():
            return False
        gone = self.dead()
        if not gone:
            return True
        with self.lock:
            if not self.broken.is_set():
                self.why = "died: " + " ".join(gone)
                self.broken.set()
        return False


def ctest_tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["tests"]


def parse(test):
    """(case dict) or None when the test is not one to rerun across hosts."""
    props = {p["name"]: p["value"] for p in test.get("properties", [])}
    labels = set(props.get("LABELS", []))
    if "mpi" not in labels or labels & LEFT_OUT_LABELS or props.get("WILL_FAIL") \
            or LEFT_OUT_TESTS.match(test["name"]) or test["name"] in KNOWN:
        return None
    cmd = test.get("command") or []
    at = next((i for i, a in enumerate(cmd) if a.endswith("/bin/ampirun")), None)
    if at is None:
        return None
    wrapper = cmd[:at]
    if wrapper and not any(w.endswith(WRAPPERS) for w in wrapper):
        return None
    np_, vp, env, i = 1, 0, {}, at + 1
    while i < len(cmd) and cmd[i].startswith("-"):
        opt = cmd[i]
        if opt == "--":
            i += 1
            break
        if opt not in ("-np", "--vp", "-x") or i + 1 >= len(cmd):
            return None  # a launcher option: the test is about ampirun
        val = cmd[i + 1]
        if opt == "-np":
            np_ = int(val)
        elif opt == "--vp":
            vp = int(val)
        else:
            k, _, v = val.partition("=")
            env[k] = v
        i += 2
    if i >= len(cmd) or "/tests/soak/" in cmd[i]:
        return None  # soaks (10^6 messages) have their own label and runs
    for entry in props.get("ENVIRONMENT", []):
        for e in entry.split(";"):  # one entry may hold several, as CTest joins them
            k, _, v = e.partition("=")
            env[k] = v
    pass_re = props.get("PASS_REGULAR_EXPRESSION", [])
    fail_re = props.get("FAIL_REGULAR_EXPRESSION", [])
    # Checks of what only one launcher or one placement prints: ampirun's own reports ("ampirun:
    # ...", "killed by signal", its timeout) and the protocol a message took, which differs when
    # the ranks are on other hosts (net/* instead of self/* or shm/*). The crash and abort cases
    # are run across hosts with checks of their own (SPECIAL below).
    if any(m in a for a in wrapper + pass_re + fail_re
           for m in ("ampirun", "killed by signal", "protocol: ", "--timeout")):
        return None
    # expect_run.sh's exact status 128+N is a signal under ampirun; srun reports it otherwise.
    wrapped = []
    j = 0
    while j < len(wrapper):
        a = wrapper[j]
        if a == "-s" and j + 1 < len(wrapper) and int(wrapper[j + 1]) >= 128:
            wrapped.append("-S")
            j += 2
            continue
        wrapped.append(a)
        j += 1
    return {
        "test": test["name"],
        "wrapper": wrapped,
        "program": cmd[i:],
        "env": env,
        "ranks": vp or np_,  # --vp is the job's number of ranks
        "pass_re": pass_re,
        "fail_re": fail_re,
        "timeout": float(props.get("TIMEOUT", 60)),
        "exact": bool(wrapper or pass_re),
    }


# What only several hosts exercise, with checks that do not depend on the launcher: a rank that
# crashes, aborts or hits a fatal error on one host ends the whole job (srun returns non-zero,
# nothing of the job survives, our crash report names the rank), and a deadlock across hosts is
# reported. (program arguments, ranks, expect_run.sh checks)
SPECIAL = [
    ("crash", ["crash", "mh-crash-token"], 8,
     ["-S", "-e", r"^ampi: rank [0-9]+ \(world\) of process [0-9]+ \(pid [0-9]+\) crashed: SIGSEGV",
      "-E", "NOT REACHED"]),
    ("abort", ["abort", "mh-abort-token"], 8,
     ["-s", "9", "-e", r"rank [0-9]+ called MPI_Abort\(MPI_COMM_WORLD, 9\)", "-E", "NOT REACHED"]),
    ("exit", ["exit", "mh-exit-token"], 8,
     ["-S", "-e", r"called exit\(5\) between MPI_Init and MPI_Finalize"]),
    ("deadlock", ["deadlock", "mh-deadlock-token"], 8,
     ["-S", "-e", "deadlock", "-e", r"rank [0-9]+: blocked in MPI_Recv", "-E", "NOT REACHED"]),
]


def special_cases(build, here):
    prog = os.path.join(build, "tests", "mpi", "failure_modes")
    out = []
    for name, args, ranks, checks in SPECIAL:
        wrapper = ["/bin/sh", os.path.join(here, "..", "mpi", "no_survivors.sh"), args[-1]] + checks + ["--"]
        out.append({"test": f"across_hosts.{name}", "wrapper": wrapper, "program": [prog] + args,
                    "env": {}, "ranks": ranks, "pass_re": [], "fail_re": [], "timeout": 40.0,
                    "exact": True})
    return out


# ampirun across the hosts without Slurm (--host, --hostfile: its daemons started through each
# host's sshd, AMPI_RSH set by multihost_test.sh): MPI programs over 2 processes per host, failures
# that must end the job everywhere with the right status and leave nothing running, standard
# input and output, -x, --tag-output, mpiexec -hostfile, and ^C/SIGTERM/SIGKILL of the head.
# (name, command after the launcher's path, expect_run.sh checks, TOKEN for no_survivors.sh)
# In the commands: {hosts2} is "node1:2,...", {hosts1} "node1,...", {hostfile} a file of
# "nodeI slots=2" lines, {mpi} the MPI test programs' directory, {nhosts} the number of hosts.
AMPIRUN = [
    ("p2p_basic", "ampirun --host {hosts2} {mpi}/p2p_basic", ["-s", "0"], None),
    ("comms.vp8", "ampirun --host {hosts2} --vp {vp8} {mpi}/comms", ["-s", "0"], None),
    ("rendezvous", "ampirun --host {hosts1} {mpi}/p2p_large_many", ["-s", "0"], None),
    ("split_type", "ampirun --host {hosts2} --vp {vp8} {build}/tests/multihost/mh_hosts",
     ["-s", "0"], None),
    # The collectives under mpiexec only (18 s a run on the loaded VM: once is enough).
    ("mpiexec_hostfile", "mpiexec -hostfile {hostfile} -n {np2} {mpi}/collectives",
     ["-s", "0"], None),
    ("crash", "ampirun --host {hosts2} --vp {vp8} {mpi}/failure_modes crash mh-a-crash",
     ["-s", "139", "-e", r"^ampi: rank [0-9]+ \(world\) of process [0-9]+ \(pid [0-9]+\) crashed: SIGSEGV",
      "-e", r"^ampirun: process {lastp} \(pid [0-9]+\) killed by signal SIGSEGV", "-E", "NOT REACHED"],
     "mh-a-crash"),
    ("abort", "ampirun --host {hosts2} --vp {vp8} {mpi}/failure_modes abort mh-a-abort",
     ["-s", "9", "-e", r"rank [0-9]+ called MPI_Abort\(MPI_COMM_WORLD, 9\)", "-E", "NOT REACHED"],
     "mh-a-abort"),
    ("exit_status", "ampirun --host {hosts2} --vp {vp8} {mpi}/failure_modes exit mh-a-exit",
     ["-s", "5", "-e", r"called exit\(5\) between MPI_Init and MPI_Finalize"], "mh-a-exit"),
    ("deadlock", "ampirun --host {hosts2} --vp {vp8} {mpi}/failure_modes deadlock mh-a-deadlock",
     ["-S", "-e", "deadlock", "-e", r"rank [0-9]+: blocked in MPI_Recv", "-E", "NOT REACHED"],
     "mh-a-deadlock"),
    # Process 0 (on node1) reads the standard input; every process's output reaches the head;
    # -x and the settings reach the other hosts.
    ("stdin_stdout_env",
     "sh -c 'printf \"first\\nsecond\\n\" | \"$0\" \"$@\"' env AMPI_VERBOSE=0 {bin}/ampirun "
     "--host {hosts1} -x MH_X=yes "
     "sh -c 'read -r line; echo \"$OMPI_COMM_WORLD_RANK/$OMPI_COMM_WORLD_SIZE on $(hostname) "
     "local $OMPI_COMM_WORLD_LOCAL_RANK/$OMPI_COMM_WORLD_LOCAL_SIZE got [$line] x=$MH_X "
     "verbose=$AMPI_VERBOSE\"'",
     ["-s", "0", "-o", r"^0/{nhosts} on node1 local 0/1 got \[first\] x=yes verbose=0$",
      "-o", r"^{last}/{nhosts} on node{nhosts} local 0/1 got \[\] x=yes verbose=0$"], None),
    ("tag_output", "ampirun --host {hosts1} --tag-output sh -c 'echo on $(hostname); echo err >&2'",
     ["-s", "0", "-o", r"^\[0\] on node1$", "-o", r"^\[{last}\] on node{nhosts}$",
      "-e", r"^\[{last}\] err$"], None),
    ("remote_exit_status", "ampirun --host {hosts1} sh -c '[ $OMPI_COMM_WORLD_RANK = {last} ] && exit 7; "
     "exec sleep 30' mh-a-rexit",
     ["-s", "7", "-e", r"^ampirun: process {last} \(pid [0-9]+\) exited with status 7$"],
     "mh-a-rexit"),
    ("program_missing_remotely", "ampirun --host {hosts1} {tmp}/only_on_node1 mh-a-missing",
     ["-s", "127", "-e", r"^ampirun: cannot execute '.*only_on_node1' on node{nhosts}"], "mh-a-missing"),
    # The head ended by a signal: every host's processes end with it.
    ("sigterm_head", "sh {here}/ampirun_signal.sh TERM 143 {bin}/ampirun --host {hosts2} "
     "{mpi}/failure_modes hang mh-a-term", ["-s", "0"], "mh-a-term"),
    ("sigint_head", "sh {here}/ampirun_signal.sh INT 130 {bin}/ampirun --host {hosts2} "
     "{mpi}/failure_modes hang mh-a-int", ["-s", "0"], "mh-a-int"),
    ("sigkill_head", "sh {here}/ampirun_signal.sh KILL 137 {bin}/ampirun --host {hosts2} "
     "{mpi}/failure_modes hang mh-a-kill", ["-s", "0"], "mh-a-kill"),
]


def ampirun_runs(build, here, tmp, nhosts, first_index):
    """The runs of AMPIRUN, or none when the hosts have no sshd (AMPI_MULTIHOST_SSH=0)."""
    if os.environ.get("AMPI_MULTIHOST_SSH") != "1":
        return []
    hostfile = os.path.join(tmp, "hostfile")
    with open(hostfile, "w") as f:
        f.write("# tests/multihost: every simulated host, 2 slots\n")
        f.writelines(f"node{i} slots=2\n" for i in range(1, nhosts + 1))
    # A program that exists on node1 only (this script runs there): TMPDIR/tmp is private to
    # each host (multihost_test.sh's on_host mounts its own there).
    only_here = os.path.join(tmp, "tmp", "only_on_node1")
    with open(only_here, "w") as f:
        f.write("#!/bin/sh\nexec sleep 30\n")
    os.chmod(only_here, 0o755)
    subst = {"hosts2": ",".join(f"node{i}:2" for i in range(1, nhosts + 1)),
             "hosts1": ",".join(f"node{i}" for i in range(1, nhosts + 1)),
             "hostfile": hostfile, "mpi": os.path.join(build, "tests", "mpi"), "build": build,
             "bin": os.path.join(build, "bin"), "here": here, "tmp": os.path.join(tmp, "tmp"), "nhosts": nhosts,
             "np2": 2 * nhosts, "vp8": 4 * nhosts, "last": nhosts - 1,
             "lastp": 2 * nhosts - 1}
    out = []
    for name, command, checks, token in AMPIRUN:
        words = shlex.split(command.format(**subst))
        if words[0] in ("ampirun", "mpiexec"):
            words[0] = os.path.join(build, "bin", words[0])
        checks = [c.format(**subst) for c in checks]
        wrapper = ["/bin/sh", os.path.join(here, "..", "mpi", "expect_run.sh")]
        if token:
            wrapper = ["/bin/sh", os.path.join(here, "..", "mpi", "no_survivors.sh"), token]
        out.append({"test": f"ampirun_hosts.{name}", "name": f"ampirun_hosts.{name}",
                    "command": wrapper + checks + ["--"] + words, "env": {}, "vp": None,
                    "pass_re": [], "fail_re": [], "timeout": 60.0, "exact": True,
                    "index": first_index + len(out)})
    return out


def runs(cases, nhosts):
    """The srun runs, one per distinct program/arguments/environment/checks and layout."""
    seen, out = set(), []
    for c in cases:
        base = os.path.basename(c["program"][0])
        envkey = tuple(sorted(c["env"].items()))
        if c["exact"]:
            if c["ranks"] < nhosts:
                continue
            layouts = [(nhosts, c["ranks"])]
        else:
            layouts = [(4, None), (4, 8)]
        for tasks, vp in layouts:
            key = (tuple(c["wrapper"]), tuple(c["program"]), envkey, tuple(c["pass_re"]), tasks, vp)
            if key in seen:
                continue
            seen.add(key)
            name = f"{c['test']}@n{tasks}" + (f".vp{vp}" if vp else "")
            out.append(dict(c, name=name, tasks=tasks, vp=vp, base=base, index=len(out)))
    return out


def run_one(r, nhosts, cluster, deadline):
    """Runs one case as a Slurm job of its own; returns (outcome, the lines to print), outcome
    "pass", "fail", or "not run" (the cluster broke or the time budget was spent first)."""
    if not cluster.check():
        return "not run", []
    if time.monotonic() > deadline:
        return "fail", [f"FAIL {r['name']}: not started, the time budget "
                        "(AMPI_MULTIHOST_BUDGET) was spent"]
    job = f"mh{r['index']}"
    minutes = int(r["timeout"] // 60) + 2  # Slurm ends the job itself if everything else fails
    srun = ["srun", "--mpi=pmix", "-J", job, f"--time={minutes}", "-N", str(nhosts),
            "-n", str(r.get("tasks", 0))]
    cmd = r["command"] if "command" in r else r["wrapper"] + srun + r["program"]
    env = dict(os.environ)
    env.update(r["env"])
    env.pop("AMPI_VP", None)
    if r["vp"]:
        env["AMPI_VP"] = str(r["vp"])
    limit = r["timeout"] + 20
    t0 = time.monotonic()
    # Its own process group, so that a run past its time is interrupted as a user would do it
    # (srun cancels the job on a second SIGINT within a second) and not left holding CPUs.
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, errors="replace",
                         start_new_session=True)
    text = None
    # Waits a second at a time (communicate keeps what it read when it times out), watching the
    # cluster's daemons: a dead slurmd would leave this job waiting for a DOWN node.
    while text is None and time.monotonic() - t0 < limit and cluster.check():
        try:
            text, _ = p.communicate(timeout=1)
        except subprocess.TimeoutExpired:
            pass
    if text is not None:
        rc = p.returncode
        why = []
        if r["pass_re"]:
            if not any(re.search(x, text, re.S) for x in r["pass_re"]):
                why.append("no output matches " + " | ".join(r["pass_re"]))
        elif rc != 0:
            why.append(f"exit status {rc}")
        for x in r["fail_re"]:
            if re.search(x, text, re.S):
                why.append(f"output matches {x}")
    else:
        for _ in range(2):
            os.killpg(p.pid, signal.SIGINT)
            time.sleep(0.3)
        try:
            text, _ = p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            text, _ = p.communicate()
        subprocess.run(["scancel", "-n", job], check=False, capture_output=True)
        why = [f"timed out after {limit:.0f} s"]
    # A failure while a daemon died is the cluster's, not the case's: it runs again after the
    # restart.
    if why and not cluster.check():
        return "not run", [f"NOT RUN {r['name']}: stopped, a daemon of the cluster {cluster.why}"]
    ms = (time.monotonic() - t0) * 1000
    shown = " ".join(f"{k}={v}" for k, v in sorted(r["env"].items()))
    shown += (" " if shown else "") + (f"AMPI_VP={r['vp']} " if r["vp"] else "")
    lines = [f"$ {shown}{' '.join(cmd)}"]
    if why:
        lines += ["| " + line for line in text.splitlines()[-25:]]
        lines.append(f"FAIL {r['name']}: {'; '.join(why)} ({ms:.0f} ms)")
        return "fail", lines
    lines.append(f"PASS {r['name']} ({ms:.0f} ms)")
    return "pass", lines


def main():
    build, tmp = sys.argv[1], sys.argv[2]
    nhosts = int(os.environ.get("AMPI_MULTIHOST_NHOSTS", "2"))
    only = os.environ.get("AMPI_MULTIHOST_ONLY")
    # The budget counts from multihost_test.sh's first run (AMPI_MULTIHOST_DEADLINE, seconds
    # since the epoch), restarts included.
    end = os.environ.get("AMPI_MULTIHOST_DEADLINE")
    if end:
        end = float(end)
    else:
        end = time.time() + float(os.environ.get("AMPI_MULTIHOST_BUDGET", "1100"))
    deadline = time.monotonic() + (end - time.time())
    cluster = Cluster(tmp, nhosts)
    passed_file = os.path.join(tmp, "passed")
    try:
        with open(passed_file) as f:
            done = set(f.read().split())
    except OSError:
        done = set()
    cases = [c for c in (parse(t) for t in ctest_tests(build)) if c]
    cases += special_cases(build, os.path.dirname(os.path.abspath(__file__)))
    todo = runs(cases, nhosts)
    todo += ampirun_runs(build, os.path.dirname(os.path.abspath(__file__)), tmp, nhosts, len(todo))
    if only:
        todo = [r for r in todo if re.search(only, r["name"])]
    total = len(todo)
    todo = [r for r in todo if r["name"] not in done]
    print(f"multihost_runs: {total} runs from {len(cases)} tests, {nhosts} hosts"
          + (f", {total - len(todo)} passed before the cluster's restart" if done else ""),
          flush=True)
    for name, why in KNOWN.items():
        print(f"multihost_runs: left out, known open bug: {name}: {why}", flush=True)

    def record(r, outcome, lines):
        if lines:
            print("\n".join(lines), flush=True)
        if outcome == "pass":
            with open(passed_file, "a") as f:
                f.write(r["name"] + "\n")

    # Several jobs at once (each host has 8 task slots; a run takes at most 4): a run is mostly
    # waiting for Slurm's launch and the PMIx wire-up.
    jobs = int(os.environ.get("AMPI_MULTIHOST_JOBS", "4"))
    failed, not_run = [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for r, (outcome, lines) in zip(todo, pool.map(
                lambda r: run_one(r, nhosts, cluster, deadline), todo)):
            record(r, outcome, lines)
            {"fail": failed, "not run": not_run}.get(outcome, []).append(r)
    # A failed case runs once more, alone: a failure that does not come back is reported as
    # FLAKY (and listed), one that does is a failure.
    flaky = []
    for r in list(failed):
        outcome, lines = run_one(r, nhosts, cluster, deadline + 120)
        record(r, outcome, lines)
        if outcome != "fail":
            failed.remove(r)
        if outcome == "pass":
            flaky.append(r["name"])
            print(f"FLAKY {r['name']}: failed once, passed when run again alone", flush=True)
        elif outcome == "not run":
            not_run.append(r)
    if flaky:
        print("multihost_runs: flaky (failed once, passed alone): " + " ".join(flaky))
    if cluster.broken.is_set():
        print(f"multihost_runs: the cluster broke (a daemon {cluster.why}); {len(not_run)} runs "
              f"to run again after a restart, {len(failed)} failed before", flush=True)
        return 1 if failed else 3
    npassed = total - len(failed)
    print(f"multihost_runs: {npassed} passed, {len(failed)} failed")
    if failed:
        print("multihost_runs: failed: " + " ".join(r["name"] for r in failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
