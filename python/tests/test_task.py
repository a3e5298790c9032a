"""Task validation: every malformed task is a ValueError naming the field, never a crash."""

from __future__ import annotations

import pytest

from meadow_mind import Task, tasks

RULE = "If the light is red, choose A; if it is green, choose B."
TEXT = {"A": "stop", "B": "go"}


def make(**kw):
    args = dict(
        perceive=lambda obs: "The light is red.", rule=RULE, options={"A": 0, "B": 1}, option_text=TEXT
    )
    args.update(kw)
    return Task(**args)


@pytest.mark.parametrize(
    "kw, field",
    [
        (dict(options={}), "options"),
        (dict(options=[("A", 0), ("A", 1)]), "twice"),
        (dict(options={"a": 0, "B": 1}), "options"),
        (dict(options={"AB": 0}), "options"),
        (dict(option_text={"A": "stop"}), "option_text"),
        (dict(option_text={"A": "stop", "B": " "}), "option_text"),
        (dict(option_text={"A": "stop", "B": "go", "C": "wait"}), "option_text"),
        (dict(rule=""), "rule"),
        (dict(rule=None), "rule"),
        (dict(sanity=[("The light is red.", "C")]), "sanity"),
        (dict(sanity=[("", "A")]), "sanity"),
        (dict(sanity=["The light is red."]), "sanity"),
        (dict(memory=True), "mem_key"),
        (dict(perceive="not callable"), "perceive"),
        (dict(max_steps=0), "max_steps"),
        (dict(act_text={"C": "x"}), "act_text"),
        (dict(env_kwargs=[1]), "env_kwargs"),
        (dict(judge=3), "judge"),
    ],
)
def test_bad_task_names_the_field(kw, field):
    with pytest.raises(ValueError, match=field):
        make(**kw)


def test_options_as_text_action_pairs():
    t = Task(perceive=None, rule=RULE, options={"A": ("stop", 0), "B": ("go", 1)})
    assert t.option_text == TEXT and t.options == {"A": 0, "B": 1}


def test_perceiver_that_raises_propagates(mind):
    def perceive(obs):
        raise RuntimeError("sensor broke")

    with pytest.raises(RuntimeError, match="sensor broke"):
        mind.decide(make(perceive=perceive), 0)


def test_perceiver_returning_non_string(mind):
    with pytest.raises(TypeError, match="must return a str, got int"):
        mind.decide(make(perceive=lambda obs: 7), 0)


def test_no_perceiver_cannot_play(mind):
    with pytest.raises(ValueError, match="no perceive"):
        mind.decide(make(perceive=None), 0)


@pytest.mark.parametrize("obs", [[0.1, 0.2, 0.3], [0.0] * 5, "left", None, [[1, 2], [3]]])
def test_builtin_obs_of_wrong_shape(mind, obs):
    with pytest.raises((ValueError, TypeError)):
        mind.decide(tasks.cartpole(), obs)


@pytest.mark.parametrize("obs", [64, -1, 2.5, [1, 2]])
def test_builtin_discrete_obs_out_of_space(mind, obs):
    with pytest.raises(ValueError, match="observation space"):
        mind.decide(tasks.frozenlake(), obs)


def test_memory_counts_visits_before_the_step(mind):
    seen_words = []

    def perceive(obs, task):
        seen_words.append(task.seen(obs))
        return "The light is red."

    t = make(perceive=perceive, memory=True, mem_key=lambda obs: obs)
    for obs in [1, 2, 1, 1]:
        mind.decide(t, obs)
    assert seen_words == [False, False, True, True]
    assert t.visits(1) == 3 and t.visited == {1: 3, 2: 1}
    t.forget()
    assert not t.seen(1)


def test_editing_the_rule_makes_a_new_table(mind):
    t = make(perceive=lambda obs: "The light is red.")
    a, _ = mind.decide(t, 0)
    t.rule = "If the light is red, choose B; if it is green, choose A."
    t.core()  # rebuilt from the new words
    assert t.core().rule == t.rule
    assert a in (0, 1)


def test_unknown_builtin():
    with pytest.raises(ValueError, match="cartpole"):
        tasks.get("no-such-task")
