"""`import ladle`: every function against the binary's --json for the same inputs, its errors, and
calls that share nothing (one after another, and on two threads at once)."""
import math
import threading
from pathlib import Path

import pytest

import ladle
from conftest import REPO

CHECK_CASES = REPO / "tests" / "cli" / "check"
SCORE_CASE = REPO / "tests" / "cli" / "score" / "glm52-tp8-json"


# --- results equal the binary's --json -------------------------------------------------------

def test_model_equals_cli(cli):
    assert ladle.model("glm-4.7-flash") == cli("model", "glm-4.7-flash", "--json").json()
    assert ladle.model("qwen3-30b-a3b", seq=4096, tensors=True) == \
        cli("model", "qwen3-30b-a3b", "--seq", "4096", "--tensors", "--json").json()


def test_gpu_equals_cli(cli):
    assert ladle.gpu() == cli("gpu", "--json").json()
    h200 = ladle.gpu("h200")
    assert h200 == cli("gpu", "h200", "--json").json()
    assert h200["name"] == "h200"


def test_predict_equals_cli(cli):
    kwargs = dict(model="glm-4.7-flash", gpu="h200", gpus=8, layout="tp=1,ep=8,recompute=full")
    got = ladle.predict(**kwargs)
    want = cli("predict", "--model", "glm-4.7-flash", "--gpu", "h200", "--gpus", "8",
               "--layout", "tp=1,ep=8,recompute=full", "--json")
    assert want.exit_code == 0
    assert got == want.json()


def test_predict_of_a_catalog_recipe_equals_cli(cli):
    assert ladle.predict(recipe="attune-tp1-pp1-ep8") == \
        cli("predict", "--recipe", "attune-tp1-pp1-ep8", "--json").json()


def test_predict_that_does_not_fit_returns_its_answer(cli):
    # Exit 1 is an answer ("does not fit"), not an error: the object says so.
    args = dict(model="glm-5.2", gpu="h200", gpus=64, layout="tp=8,pp=8,ep=8,sp=on,first=9,last=9")
    want = cli("predict", "--model", "glm-5.2", "--gpu", "h200", "--gpus", "64",
               "--layout", "tp=8,pp=8,ep=8,sp=on,first=9,last=9", "--json")
    assert want.exit_code == 1
    got = ladle.predict(**args)
    assert got == want.json()
    assert got["prediction"]["fits"] is False


def test_plan_equals_cli(cli):
    got = ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, top=3)
    want = cli("plan", "glm-4.7-flash", "--gpu", "h200", "--gpus", "8", "--top", "3", "--json").json()
    assert got == want
    assert len(got["top"]) == 3


def test_plan_sweep_equals_cli(cli):
    # A text parameter takes an int too (written in decimal); a sweep is a comma list.
    got = ladle.plan(model="glm-4.7-flash", gpu="h200", gpus="8,16", objective="cost")
    want = cli("plan", "--model", "glm-4.7-flash", "--gpu", "h200", "--gpus", "8,16",
               "--objective", "cost", "--json").json()
    assert got == want


def test_check_equals_cli(cli):
    assert ladle.check() == cli("check", "--json").json()
    recipe = CHECK_CASES / "rule-fires" / "recipe.yaml"
    want = cli("check", recipe, "--json")
    assert want.exit_code == 1
    got = ladle.check(recipe)
    assert got == want.json()
    assert got["violations"] > 0
    # Several positional paths, as a list or as separate arguments.
    both = [CHECK_CASES / "clean-file" / "recipe.yaml", recipe]
    assert ladle.check(*both) == ladle.check(both) == cli("check", *both, "--json").json()


def test_score_equals_cli(cli):
    log, recipe = SCORE_CASE / "run.log", SCORE_CASE / "recipe.yaml"
    got = ladle.score(log, recipe=recipe)
    assert got == cli("score", log, "--recipe", recipe, "--json").json()
    assert got == ladle.score([str(log)], recipe=str(recipe))
    priced = ladle.score(log, recipe=recipe, price=3.5)
    assert priced == cli("score", log, "--recipe", recipe, "--price", "3.5", "--json").json()
    assert priced != got


def test_show_and_diff_equal_cli(cli):
    assert ladle.show("attune-tp4-pp4") == cli("show", "attune-tp4-pp4", "--json").json()
    got = ladle.diff("attune-tp4-pp4", "attune-tp8-pp4")
    want = cli("diff", "attune-tp4-pp4", "attune-tp8-pp4", "--json")
    assert got == want.json()


def test_read_recipe_is_the_canonical_yaml(cli):
    yaml = pytest.importorskip("yaml")

    class Loader(yaml.SafeLoader):
        """YAML as JSON types it: a date stays its text (PyYAML reads YAML 1.1 timestamps)."""

    Loader.yaml_implicit_resolvers = {
        first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
    got = ladle.read_recipe("attune-tp4-pp4")
    text = cli("show", "attune-tp4-pp4", "--format", "yaml").stdout
    assert got == yaml.load(text, Loader=Loader)
    assert ladle.read_recipe(REPO / "recipes" / "glm-5.2-744b-a40b" / "h200" / "attune-tp4-pp4.yaml") == got
    assert isinstance(got["gpu"]["count"], int)


# --- errors -------------------------------------------------------------------------------

def test_command_error_is_ladle_error_with_the_cli_line(cli):
    want = cli("plan", "glm-4.7-flsh", "--gpu", "h200", "--gpus", "8", "--json")
    assert want.exit_code == 2
    with pytest.raises(ladle.Error) as caught:
        ladle.plan("glm-4.7-flsh", gpu="h200", gpus=8)
    assert str(caught.value) == want.error_line()
    assert caught.value.exit_code == 2
    assert caught.value.kind == "usage"
    # The line shortens a long message; .message holds all of it.
    assert caught.value.message.startswith("unknown model 'glm-4.7-flsh' (did you mean 'glm-4.7-flash'?)")
    assert "qwen3-30b-a3b" in caught.value.message


def test_located_error_carries_file_line_col(cli):
    recipe = CHECK_CASES / "unknown-key" / "recipe.yaml"
    want = cli("predict", "--recipe", recipe, "--json")
    with pytest.raises(ladle.Error) as caught:
        ladle.predict(recipe=recipe)
    e = caught.value
    assert str(e) == want.error_line()
    assert (e.file, e.line, e.col, e.field) == (str(recipe), 9, 3, "gpu.per_nod")
    assert e.kind == "input"
    assert e.message == "unknown key 'per_nod' (did you mean 'per_node'?)"
    with pytest.raises(ladle.Error) as again:
        ladle.read_recipe(recipe)
    assert str(again.value) == str(e)


def test_flag_value_refused_by_the_cli_is_ladle_error(cli):
    want = cli("plan", "glm-4.7-flash", "--gpu", "h200", "--gpus", "8", "--top", "5000", "--json")
    with pytest.raises(ladle.Error) as caught:
        ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, top=5000)
    assert str(caught.value) == want.error_line()
    assert caught.value.kind == "usage"


def test_unreadable_file_of_check_raises_with_the_result(cli):
    files = [CHECK_CASES / "one-bad-one-good" / "a.yaml", CHECK_CASES / "one-bad-one-good" / "b.yaml"]
    want = cli("check", *files, "--json")
    assert want.exit_code == 2
    with pytest.raises(ladle.Error) as caught:
        ladle.check(files)
    assert caught.value.result == want.json()
    assert str(caught.value) == want.json()["errors"][0]


def test_tune_status_error_equals_cli(cli, tmp_path):
    want = cli("tune", "status", tmp_path / "no-such-run", "--json")
    with pytest.raises(ladle.Error) as caught:
        ladle.tune_status(tmp_path / "no-such-run")
    assert str(caught.value) == want.error_line()


@pytest.mark.parametrize("call, names", [
    (lambda: ladle.plan("glm-4.7-flash", gpu="h200", gpuz=8), ["gpuz", "did you mean 'gpu'"]),
    (lambda: ladle.predict(model="glm-4.7-flash", gpu="h200", gpus="8", layout="tp=1"), ["'gpus'", "integer"]),
    (lambda: ladle.predict(model="glm-4.7-flash", gpu="h200", gpus=8.0, layout="tp=1"), ["'gpus'"]),
    (lambda: ladle.predict(model="glm-4.7-flash", gpu="h200", gpus=True, layout="tp=1"), ["'gpus'"]),
    (lambda: ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, slurm=1), ["'slurm'", "boolean"]),
    (lambda: ladle.plan("glm-4.7-flash", gpu=["h200"], gpus=8), ["'gpu'", "list"]),
    (lambda: ladle.plan("glm-4.7-flash", gpu={"name": "h200"}, gpus=8), ["'gpu'", "dict"]),
    (lambda: ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, margin=math.nan), ["'margin'", "finite"]),
    (lambda: ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, top=2**80), ["'top'", "out of range"]),
    (lambda: ladle.predict("glm-4.7-flash"), ["positional"]),
    (lambda: ladle.score(recipe="x.yaml"), ["'logs'", "missing"]),
    (lambda: ladle.plan("glm-4.7-flash", model="glm-4.7-flash"), ["multiple values", "'model'"]),
    (lambda: ladle.read_recipe(3), ["'recipe'"]),
])
def test_wrong_arguments_raise_type_error_naming_the_parameter(call, names):
    with pytest.raises(TypeError) as caught:
        call()
    for name in names:
        assert name in str(caught.value)


def test_error_class():
    assert issubclass(ladle.Error, Exception)
    assert ladle.Error.__module__ == "ladle"


# --- calls share nothing --------------------------------------------------------------------

def test_calls_in_a_row_are_independent():
    two = ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, top=2)
    five = ladle.plan("glm-4.7-flash", gpu="h200", gpus=8)
    assert len(two["top"]) == 2
    assert len(five["top"]) == 5
    assert five["top"][:2] == two["top"]


def test_calls_on_two_threads_give_the_sequential_results():
    jobs = {
        "plan": lambda: ladle.plan("glm-4.7-flash", gpu="h200", gpus=8, top=3),
        "predict": lambda: ladle.predict(model="qwen3-30b-a3b", gpu="h200", gpus=8, layout="tp=2,ep=4"),
        "model": lambda: ladle.model("deepseek-v3"),
        "error": lambda: ladle.plan("no-such-model", gpu="h200", gpus=8),
    }

    def outcome(job):
        try:
            return job()
        except ladle.Error as e:
            return ("error", str(e))

    sequential = {name: outcome(job) for name, job in jobs.items()}
    threaded = {name: [] for name in jobs}

    def worker(name):
        threaded[name].append(outcome(jobs[name]))

    threads = [threading.Thread(target=worker, args=(name,)) for name in jobs for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert threaded == {name: [result, result] for name, result in sequential.items()}
    assert sequential["error"][0] == "error"


def test_help_lists_the_parameters():
    doc = ladle.plan.__doc__
    assert "gpus" in doc and "row_tokens" in doc and "positional" in doc
    assert "wide" not in doc  # table-only flags are left out
