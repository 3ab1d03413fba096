"""Read truebench's farm formats with their real consumers and print what they understood
as JSON on stdout, for the Rust test to compare with the cases it rendered.

    check.py junit FILE      junitparser (what Jenkins-style readers see)
    check.py kcidb FILE      kcidb-io validates against KCIDB I/O schema v5
    check.py lava FILE       LAVA's dispatcher parses the signal lines; LAVA_PACKAGES names
                             the unpacked lava-dispatcher/lava-common dist-packages folder,
                             LAVA_HELPERS its lava_test_shell folder (lava-test-case)
    check.py docs DIR        the integration examples in docs/farms: the LAVA job and test
                             definition validated by lava-common's own schemas, the GitLab
                             CI file parsed and its JUnit report traced to the command that
                             writes it (LAVA_PACKAGES as above)
"""
import json
import os
import re
import subprocess
import sys


def junit(path):
    from junitparser import JUnitXml, Failure, Skipped

    xml = JUnitXml.fromfile(path)
    out = {"suites": [], "tests": 0, "failures": 0, "skipped": 0}
    suites = [xml] if xml._tag == "testsuite" else list(xml)
    for suite in suites:
        cases = []
        for case in suite:
            results = case.result
            kind = "pass"
            message = None
            for r in results:
                if isinstance(r, Failure):
                    kind, message = "fail", r.message
                elif isinstance(r, Skipped):
                    kind, message = "skip", r.message
            cases.append(
                {"classname": case.classname, "name": case.name, "result": kind, "message": message}
            )
        props = {p.name: p.value for p in suite.properties()}
        out["suites"].append(
            {
                "name": suite.name,
                "tests": suite.tests,
                "failures": suite.failures,
                "skipped": suite.skipped,
                "cases": cases,
                "properties": props,
            }
        )
    out["tests"] = xml.tests
    out["failures"] = xml.failures
    out["skipped"] = xml.skipped
    return out


def kcidb(path):
    import kcidb_io

    with open(path) as f:
        data = json.load(f)
    schema = kcidb_io.schema.V5_0
    # Raises with the schema's message when the document does not conform.
    schema.validate_exactly(data)
    return {
        "valid": True,
        "version": [data["version"]["major"], data["version"]["minor"]],
        "tests": len(data.get("tests", [])),
        "numbers": sum(1 for t in data.get("tests", []) if "number" in t),
        # The newest schema the package knows takes it too, after its own upgrade.
        "latest_valid": bool(kcidb_io.schema.LATEST.is_valid(kcidb_io.schema.LATEST.upgrade(data))),
    }


class Recorder:
    """Stands in for the dispatcher's YAML logger: keeps what it reports as results."""

    def __init__(self):
        self.results_seen = []
        self.errors = []

    def results(self, data):
        self.results_seen.append(data)

    def error(self, msg, *args):
        self.errors.append(msg % args if args else msg)

    def info(self, *a, **k):
        pass

    debug = warning = info


def lava(path):
    sys.path.insert(0, os.environ["LAVA_PACKAGES"])
    from lava_dispatcher.actions.test.shell import TestShellAction

    action = TestShellAction()
    action._reset_patterns()
    rec = Recorder()
    action.logger = rec
    action.signal_director.test_uuid = "truebench-test"
    action.definition = "truebench"
    signal = re.compile(action.patterns["signal"])
    lines = open(path).read().splitlines()
    sets = []
    for line in lines:
        m = signal.search(line)
        if not m:
            raise SystemExit("no LAVA signal in line %r" % line)
        name, params = m.group(1), m.group(2).split()
        if name == "TESTSET":
            r = action.signal_test_set(params)
            if r == "testset_start":
                sets.append(action.testset_name)
        elif name == "TESTCASE":
            action.signal_test_case(params)
        else:
            raise SystemExit("unexpected signal %s" % name)
    if rec.errors:
        raise SystemExit("the dispatcher logged errors: %s" % rec.errors)
    # The helper itself: lava-test-case must print the very line truebench printed.
    helpers = os.environ["LAVA_HELPERS"]
    same = 0
    for line in lines:
        m = signal.search(line)
        if m.group(1) != "TESTCASE":
            continue
        data = dict(p.split("=", 1) for p in m.group(2).split())
        args = [data["TEST_CASE_ID"], "--result", data["RESULT"]]
        if "UNITS" in data:
            args += ["--units", data["UNITS"]]
        if "MEASUREMENT" in data:
            args += ["--measurement", data["MEASUREMENT"]]
        env = dict(os.environ, PATH=helpers + ":" + os.environ["PATH"],
                   LAVA_RESULT_DIR=os.environ["LAVA_RESULT_DIR"])
        env.pop("KMSG", None)
        got = subprocess.run(["sh", os.path.join(helpers, "lava-test-case")] + args,
                             env=env, capture_output=True, text=True, check=True).stdout.strip()
        if got != line:
            raise SystemExit("lava-test-case printed %r where truebench printed %r" % (got, line))
        same += 1
    return {"sets": sets, "results": rec.results_seen, "helper_lines": same}


def docs(path):
    import yaml

    sys.path.insert(0, os.environ["LAVA_PACKAGES"])
    import lava_common.schemas as job_schema
    from lava_common.schemas.test import testdef as testdef_schema

    out = {}
    with open(os.path.join(path, "lava", "truebench.yaml")) as f:
        testdef = yaml.safe_load(f)
    testdef_schema.validate(testdef)
    # The strict schema of an inline definition too (it allows no unknown keys).
    from voluptuous import Schema

    Schema(testdef_schema.testdef())(testdef)
    steps = testdef["run"]["steps"]
    if not any("--format lava" in s for s in steps):
        raise SystemExit("the test definition does not ask for LAVA's signals")
    out["testdef_steps"] = testdef["install"]["steps"] + steps
    with open(os.path.join(path, "lava", "job.yaml")) as f:
        job = yaml.safe_load(f)
    job_schema.validate(job, strict=True)
    test = [a["test"] for a in job["actions"] if "test" in a][0]
    defs = [d["path"] for d in test["definitions"]]
    repo = os.path.dirname(os.path.dirname(os.path.abspath(path)))
    for d in defs:
        if not os.path.exists(os.path.join(repo, d)):
            raise SystemExit("the job names %s, which is not in the repository" % d)
    out["job_definitions"] = defs
    with open(os.path.join(path, "gitlab-ci.yml")) as f:
        gitlab = yaml.safe_load(f)
    template = gitlab[".truebench"]
    report = template["artifacts"]["reports"]["junit"]
    script = template["script"]
    if not any("--format junit" in s and "> " + report in s for s in script):
        raise SystemExit("no script line writes the JUnit report %s" % report)
    jobs = [k for k, v in gitlab.items() if isinstance(v, dict) and v.get("extends") == ".truebench"]
    if not jobs:
        raise SystemExit("no job extends .truebench")
    out["gitlab_script"] = script
    out["gitlab_jobs"] = jobs
    return out


if __name__ == "__main__":
    what, path = sys.argv[1], sys.argv[2]
    print(json.dumps({"junit": junit, "kcidb": kcidb, "lava": lava, "docs": docs}[what](path)))
