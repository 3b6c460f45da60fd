"""`ladle mcp` driven by a scripted client over stdio: newline-delimited JSON-RPC 2.0 messages as
the Model Context Protocol's stdio transport sends them (modelcontextprotocol.io/specification,
2025-06-18: basic/transports, server/tools)."""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TIMEOUT_S = 300  # a hang fails the test instead of stalling it


def binary():
    path = os.environ.get("LADLE_BINARY")
    if not path:
        pytest.fail("LADLE_BINARY is not set: run these tests through ctest (test mcp/stdio)")
    return path


def session(*messages):
    """Sends each message (a dict, or raw bytes/str sent as they are) as one line, closes stdin
    and returns the replies, one parsed JSON object per line of output, and the exit code."""
    lines = []
    for m in messages:
        if isinstance(m, (dict, list)):
            lines.append(json.dumps(m).encode())
        elif isinstance(m, str):
            lines.append(m.encode())
        else:
            lines.append(m)
    done = subprocess.run([binary(), "mcp"], input=b"\n".join(lines) + b"\n", capture_output=True,
                          timeout=TIMEOUT_S, cwd=REPO)
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return replies, done.returncode


def cli_json(*args):
    done = subprocess.run([binary(), *map(str, args)], capture_output=True, text=True, cwd=REPO,
                          timeout=TIMEOUT_S)
    return done.returncode, json.loads(done.stdout)


def request(id, method, params=None):
    m = {"jsonrpc": "2.0", "id": id, "method": method}
    if params is not None:
        m["params"] = params
    return m


INITIALIZE = request(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "test", "version": "1"}})
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(id, name, arguments):
    return request(id, "tools/call", {"name": name, "arguments": arguments})


def test_initialize_list_and_call_plan():
    plan_args = {"model": "glm-4.7-flash", "gpu": "h200", "gpus": "8", "top": 3}
    replies, code = session(INITIALIZE, INITIALIZED, request(2, "tools/list"), call(3, "plan", plan_args))
    assert code == 0
    # The notification gets no reply: three requests, three replies, in order.
    assert [r["id"] for r in replies] == [1, 2, 3]
    init = replies[0]["result"]
    assert init["protocolVersion"] == "2025-06-18"
    assert init["serverInfo"]["name"] == "ladle"
    assert "tools" in init["capabilities"]

    tools = {t["name"]: t for t in replies[1]["result"]["tools"]}
    assert set(tools) == {"model", "gpu", "predict", "plan", "check", "score", "show", "diff", "tune_status"}
    plan = tools["plan"]["inputSchema"]
    assert plan["type"] == "object" and plan["additionalProperties"] is False
    props = plan["properties"]
    # Generated from plan's CLI11 options: types, bounds (--top's check) and the --help text.
    assert props["gpus"]["type"] == "string"
    assert {k: props["top"][k] for k in ("type", "minimum", "maximum")} == \
        {"type": "integer", "minimum": 1, "maximum": 1000}
    help_text = " ".join(subprocess.run([binary(), "plan", "--help"], capture_output=True, text=True).stdout.split())
    for name in ("top", "gpus", "margin", "slurm", "compare"):
        assert props[name]["description"] and " ".join(props[name]["description"].split()) in help_text, name
    assert props["margin"]["type"] == "number"
    assert props["slurm"]["type"] == "boolean"
    assert "array" in json.dumps(props["compare"])  # repeatable: one value or a list
    assert "json" not in props and "help" not in props and "wide" not in props
    assert tools["show"]["inputSchema"]["required"] == ["recipe"]
    assert tools["score"]["inputSchema"]["required"] == ["logs", "recipe"]
    assert "format" not in tools["show"]["inputSchema"]["properties"]

    result = replies[2]["result"]
    assert result["isError"] is False
    code, want = cli_json("plan", "glm-4.7-flash", "--gpu", "h200", "--gpus", "8", "--top", "3", "--json")
    assert result["structuredContent"] == want
    assert json.loads(result["content"][0]["text"]) == want


def test_predict_with_bad_input():
    replies, code = session(
        INITIALIZE,
        # A value of the wrong type, and a name that is no parameter: invalid params.
        call(2, "predict", {"model": "glm-4.7-flash", "gpu": "h200", "gpus": "eight", "layout": "tp=1"}),
        call(3, "predict", {"model": "glm-4.7-flash", "gpu": "h200", "gpus": 8, "layot": "tp=1"}),
        # A value the command refuses: the command's one-line error, as a tool error.
        call(4, "predict", {"model": "glm-4.7-flsh", "gpu": "h200", "gpus": 8, "layout": "tp=1"}),
        call(5, "predict", {"model": "glm-4.7-flash", "gpu": "h200", "gpus": 8, "layout": "tp=3,ep=8"}),
        request(6, "ping"),
    )
    assert code == 0
    by_id = {r["id"]: r for r in replies}
    assert by_id[2]["error"]["code"] == -32602
    assert "'gpus'" in by_id[2]["error"]["message"] and "integer" in by_id[2]["error"]["message"]
    assert by_id[3]["error"]["code"] == -32602
    assert "unknown argument 'layot'" in by_id[3]["error"]["message"]
    assert "did you mean 'layout'" in by_id[3]["error"]["message"]
    for id, args in ((4, ["--model", "glm-4.7-flsh", "--layout", "tp=1"]),
                     (5, ["--model", "glm-4.7-flash", "--layout", "tp=3,ep=8"])):
        result = by_id[id]["result"]
        assert result["isError"] is True
        done = subprocess.run([binary(), "predict", "--gpu", "h200", "--gpus", "8", *args, "--json"],
                              capture_output=True, text=True, cwd=REPO)
        assert done.returncode == 2
        assert result["content"][0]["text"] == done.stderr.strip()
        # The line shortens a long message; structuredContent holds all of it.
        assert result["structuredContent"]["error"]["message"][:60] in done.stderr
    assert by_id[6]["result"] == {}


def test_a_value_the_flag_refuses_is_invalid_params():
    replies, _ = session(call(1, "plan", {"model": "glm-4.7-flash", "gpu": "h200", "gpus": "8", "top": 5000}))
    assert replies[0]["error"]["code"] == -32602
    assert "expected an integer from 1 to 1,000" in replies[0]["error"]["message"]


def test_malformed_messages_get_protocol_errors_and_the_server_goes_on():
    replies, code = session(
        "{not json",
        "[1, 2]",
        '"a string"',
        {"jsonrpc": "1.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "id": {"x": 1}, "method": "ping"},
        {"jsonrpc": "2.0", "id": 2},
        request(3, "resources/list"),
        request(4, "tools/call", {"name": "plann", "arguments": {}}),
        request(5, "tools/call", {"arguments": {}}),
        request(6, "tools/call", ["plan"]),
        call(7, "gpu", ["h200"]),
        b"\xff\xfe{}",
        "[" * 100000 + "]" * 100000,
        request(8, "ping"),
    )
    assert code == 0
    codes = [(r.get("id"), r["error"]["code"]) for r in replies if "error" in r]
    assert codes == [(None, -32700), (None, -32600), (None, -32600), (1, -32600), (None, -32600),
                     (2, -32600), (3, -32601), (4, -32602), (5, -32602), (6, -32602), (7, -32602),
                     (None, -32700), (None, -32600)]
    assert "did you mean 'plan'" in replies[7]["error"]["message"]
    assert replies[0]["error"]["message"].startswith("stdin:1:")
    assert replies[-1] == {"jsonrpc": "2.0", "id": 8, "result": {}}


def test_a_message_over_the_bound_is_refused_unread():
    big = json.dumps(call(1, "gpu", {"name": "h" * (5 << 20)}))
    replies, code = session(big, request(2, "ping"))
    assert code == 0
    assert replies[0]["error"]["code"] == -32600
    assert "at most 4,194,304 bytes" in replies[0]["error"]["message"]
    assert replies[1]["result"] == {}


def test_results_equal_the_cli_for_each_tool():
    score_case = REPO / "tests" / "cli" / "score" / "glm52-tp8-json"
    cases = [
        ("model", {"model": "glm-4.7-flash"}, ["model", "glm-4.7-flash"]),
        ("gpu", {"name": "h200"}, ["gpu", "h200"]),
        ("predict", {"recipe": "attune-tp1-pp1-ep8"}, ["predict", "--recipe", "attune-tp1-pp1-ep8"]),
        ("check", {}, ["check"]),
        ("score", {"logs": [str(score_case / "run.log")], "recipe": str(score_case / "recipe.yaml")},
         ["score", score_case / "run.log", "--recipe", score_case / "recipe.yaml"]),
        ("show", {"recipe": "attune-tp4-pp4"}, ["show", "attune-tp4-pp4"]),
        ("diff", {"a": "attune-tp4-pp4", "b": "attune-tp8-pp4"}, ["diff", "attune-tp4-pp4", "attune-tp8-pp4"]),
    ]
    replies, _ = session(*[call(i, name, args) for i, (name, args, _) in enumerate(cases)])
    for (name, _, words), reply in zip(cases, replies):
        _, want = cli_json(*words, "--json")
        assert reply["result"]["structuredContent"] == want, name


def test_tune_status_of_no_run_is_a_tool_error(tmp_path):
    replies, _ = session(call(1, "tune_status", {"dir": str(tmp_path / "none")}))
    done = subprocess.run([binary(), "tune", "status", tmp_path / "none", "--json"], capture_output=True, text=True)
    assert replies[0]["result"]["isError"] is True
    assert replies[0]["result"]["content"][0]["text"] == done.stderr.strip()


def test_end_of_input_ends_the_server():
    replies, code = session()
    assert replies == [] and code == 0
