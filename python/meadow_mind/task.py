"""Task: everything the mind needs to play one game, written in Python.

A perceiver turns an observation into one status sentence; the rule (one sentence) and the
lettered options say which option to take; the exam (``sanity``) proves the wording before
play. Built-in tasks (``meadow_mind.tasks``) are Tasks whose perceiver and judge are C++.
"""

from __future__ import annotations

import inspect
import json
import os
import string
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, Union

import numpy as np

from . import _convert, _core

Perceive = Union[Callable[[Any], str], Callable[[Any, "Task"], str]]
Judge = Callable[[Any], Any]

_LETTERS = set(string.ascii_uppercase)


def _wants_task(fn: Callable[..., Any]) -> bool:
    """True when the perceiver takes (obs, task) rather than (obs)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    return len(positional) >= 2


def _letter(letter: Any, field: str) -> str:
    if not isinstance(letter, str) or letter not in _LETTERS:
        raise ValueError(f"{field}: letter {letter!r} must be one of 'A'..'Z'")
    return letter


def _pairs(value: Any, field: str) -> list[tuple[Any, Any]]:
    if isinstance(value, Mapping):
        return list(value.items())
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise ValueError(f"{field} must be a dict {{letter: ...}} or a list of pairs")
    out = []
    for item in value:
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise ValueError(f"{field}: {item!r} is not a (letter, value) pair")
        out.append((item[0], item[1]))
    return out


class Task:
    """One game for the mind: perception, a rule with lettered options, an exam.

    Args:
        perceive: ``perceive(obs) -> str`` or ``perceive(obs, task) -> str`` (the second form
            can use ``task.seen(key)`` when ``memory`` is on). ``None``: the task can be
            examined but not played.
        rule: one sentence saying which option to take when.
        options: ``{"A": action, "B": action, ...}`` (or a list of pairs); an action is what
            the env's ``step`` takes. A value may also be ``(text, action)``.
        option_text: ``{"A": "push the cart to the left", ...}``: what the prompt shows;
            required for each option not given as ``(text, action)``.
        act_text: ``{"A": "left", ...}``: short labels for traces (default: the option text).
        sanity: the exam: ``[(status sentence, expected letter), ...]`` or a dict.
        memory: working memory on; ``mem_key(obs)`` names the state whose visits are counted.
        env_id, env_kwargs: the environment (ours via ``meadow_mind.envs`` or Gymnasium's).
        max_steps: episode cap (default: the env's time limit, else 500).
        judge: ``judge(episode) -> (ok, text)`` (or a bool) for a played episode.
        name, summary: for listings and errors.

    Raises:
        ValueError: naming the field, for anything the mind could not use.
    """

    def __init__(
        self,
        perceive: Perceive | None,
        rule: str,
        options: Mapping[str, Any] | Iterable[tuple[str, Any]],
        option_text: Mapping[str, str] | None = None,
        act_text: Mapping[str, str] | None = None,
        sanity: Mapping[str, str] | Iterable[tuple[str, str]] = (),
        memory: bool = False,
        mem_key: Callable[[Any], Hashable] | None = None,
        env_id: str | None = None,
        env_kwargs: Mapping[str, Any] | None = None,
        max_steps: int | None = None,
        judge: Judge | None = None,
        name: str = "task",
        summary: str = "",
    ) -> None:
        if perceive is not None and not callable(perceive):
            raise ValueError("perceive must be a callable perceive(obs) or perceive(obs, task)")
        if not isinstance(rule, str) or not rule.strip():
            raise ValueError("rule must be a non-empty sentence")
        if not isinstance(name, str) or not name:
            raise ValueError("name must be a non-empty string")
        self.options, self.option_text = _options(options, option_text)
        self.act_text = _act_text(act_text, self.options)
        self.sanity = _sanity(sanity, self.options)
        if memory and not callable(mem_key):
            raise ValueError("mem_key: memory=True needs a callable mem_key(obs)")
        if mem_key is not None and not callable(mem_key):
            raise ValueError("mem_key must be callable")
        if env_kwargs is not None and not isinstance(env_kwargs, Mapping):
            raise ValueError("env_kwargs must be a dict")
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError("max_steps must be a positive int")
        if judge is not None and not callable(judge):
            raise ValueError("judge must be callable")

        self.perceive = perceive
        self.rule = rule
        self.memory = bool(memory)
        self.mem_key = mem_key
        self.env_id = env_id
        self.env_kwargs: dict[str, Any] = dict(env_kwargs or {})
        self.max_steps = max_steps
        self.judge = judge
        self.name = name
        self.summary = summary
        self.visited: dict[Hashable, int] = {}
        self._with_task = perceive is not None and _wants_task(perceive)
        self._native: Any = None  # the C++ task of a built-in (meadow_mind.tasks)
        self._core_key: tuple[Any, ...] | None = None
        self._core_task: Any = None
        self._spec: Any = None  # the task file's spec (from_file), perceiver and judge kept
        self.core()  # the C++ validation too, now

    # -- working memory -------------------------------------------------------------------
    def seen(self, key: Hashable) -> bool:
        """Whether ``key`` was visited before this step (always False with memory off)."""
        return self.visits(key) > 0

    def visits(self, key: Hashable) -> int:
        """How often ``key`` was visited before this step."""
        if self._native is not None:
            return self._native.visits(str(key))
        return self.visited.get(key, 0) if self.memory else 0

    def forget(self) -> None:
        """Clears working memory (the runner calls it at every reset)."""
        if self._native is not None:
            self._native.forget()
        self.visited.clear()

    # -- what the mind calls ----------------------------------------------------------------
    def core(self) -> Any:
        """The C++ view of the table (rule, options, exam), rebuilt when they change."""
        key = (self.name, self.rule, tuple(self.option_text.items()), tuple(self.sanity))
        if key != self._core_key:
            opts = [
                _core.Option(letter, text, [float(i)], self.act_text.get(letter, ""))
                for i, (letter, text) in enumerate(self.option_text.items())
            ]
            try:
                t = _core.Task(self.name, self.rule, opts, list(self.sanity))
                t.validate()
            except _core.MeadowError as e:
                raise ValueError(str(e)) from None
            self._core_task, self._core_key = t, key
        return self._core_task

    def status(self, obs: Any) -> str:
        """One step of perception with working memory: key, status sentence, visit recorded."""
        if self._native is not None:
            values = _convert.to_values(obs)
            _convert.check_obs(self._obs_space, self.env_id or self.name, values, self._obs_size)
            out = self._native.perceive(values)
            if self.memory:
                self.visited = dict(self._native.visited)
            return out
        if self.perceive is None:
            raise ValueError(f"task {self.name} has no perceive: it can be examined, not played")
        key = self.mem_key(obs) if self.memory else None
        status = self.perceive(obs, self) if self._with_task else self.perceive(obs)
        if not isinstance(status, str):
            raise TypeError(f"perceive of task {self.name} must return a str, got {type(status).__name__}")
        if self.memory:
            self.visited[key] = self.visited.get(key, 0) + 1
        return status

    def action(self, letter: str) -> Any:
        """The env action of an option."""
        return self.options[letter]

    def act_label(self, letter: str) -> str:
        return self.act_text.get(letter) or self.option_text[letter]

    def __repr__(self) -> str:
        letters = "".join(self.options)
        return (
            f"Task(name={self.name!r}, env_id={self.env_id!r}, options={letters!r}, exam={len(self.sanity)})"
        )

    # -- task files ---------------------------------------------------------------------------
    @classmethod
    def from_file(cls, path: str | os.PathLike[str]) -> Task:
        """A task written as a TOML file (rule, options, exam, env, a declarative perceiver and a
        judge; see docs/task-files.md). Its perceiver and judge run in C++.

        Raises:
            ValueError: naming the file, line and field of the first mistake.
        """
        try:
            spec = _core.read_task_spec(os.fspath(path))
            task = from_native(_core.make_task(spec))
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None
        task._spec = spec
        return task

    def to_file(self, path: str | os.PathLike[str], words_only: bool = False) -> None:
        """Writes the task as a TOML file (atomically: a failed write keeps an old file).

        A task read with ``from_file`` keeps its perceiver and judge, with the words (rule,
        options, exam) as they are now. A task whose perceiver is code (Python, or a built-in
        task's C++) cannot be written whole: ``words_only=True`` writes its words alone.

        Raises:
            ValueError: a perceiver that is code without ``words_only``, or an action or
                argument a task file cannot hold.
        """
        spec = self._spec
        code = self.perceive is not None or (self._native is not None and spec is None)
        if code and not words_only:
            raise ValueError(
                f"task {self.name}: its perceiver is code, which a task file cannot hold; "
                "to_file(path, words_only=True) writes the rule, options and exam alone"
            )
        if spec is None or words_only:
            spec = _core.TaskSpec()
        opts = []
        for letter, text in self.option_text.items():
            action = self.options[letter]
            try:
                values = _convert.to_values(action)  # floats
            except (TypeError, ValueError):
                raise ValueError(
                    f"option {letter}: action {action!r} is not a number or a list of numbers"
                ) from None
            opts.append(_core.Option(letter, text, values, self.act_text.get(letter, "")))
        try:
            spec = spec.with_words(
                self.name,
                self.summary,
                self.rule,
                opts,
                list(self.sanity),
                self.env_id or "",
                json.dumps(self.env_kwargs),
                int(self.max_steps or 500),
            )
            _core.write_task_spec(spec, os.fspath(path))
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None

    def to_json(self) -> str:
        """The task's words (rule, options, exam) as JSON."""
        return json.dumps(
            {
                "name": self.name,
                "rule": self.rule,
                "options": self.option_text,
                "sanity": self.sanity,
                "env_id": self.env_id,
                "env_kwargs": self.env_kwargs,
            }
        )


def _options(
    options: Mapping[str, Any] | Iterable[tuple[str, Any]], option_text: Mapping[str, str] | None
) -> tuple[dict[str, Any], dict[str, str]]:
    """Task's options and their texts, checked: letter -> action, letter -> text."""
    pairs = _pairs(options, "options")
    if not pairs:
        raise ValueError("options must hold at least one option")
    texts = dict(option_text or {})
    actions: dict[str, Any] = {}
    words: dict[str, str] = {}
    for letter, value in pairs:
        letter = _letter(letter, "options")
        if letter in actions:
            raise ValueError(f"options: letter {letter!r} appears twice")
        if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str):
            text, value = value
        else:
            text = texts.get(letter)
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"option_text: option {letter} needs a non-empty text")
        if value is None:
            raise ValueError(f"options: option {letter} has no action")
        actions[letter] = value
        words[letter] = text
    for letter in texts:
        if letter not in actions:
            raise ValueError(f"option_text: {letter!r} is not an option")
    return actions, words


def _act_text(act_text: Mapping[str, str] | None, options: dict[str, Any]) -> dict[str, str]:
    """Task's short action labels, checked."""
    out: dict[str, str] = {}
    for letter, text in dict(act_text or {}).items():
        if letter not in options:
            raise ValueError(f"act_text: {letter!r} is not an option")
        if not isinstance(text, str):
            raise ValueError(f"act_text: the label of {letter} must be a string")
        out[letter] = text
    return out


def _sanity(
    sanity: Mapping[str, str] | Iterable[tuple[str, str]], options: dict[str, Any]
) -> list[tuple[str, str]]:
    """Task's exam items, checked: (status sentence, expected letter)."""
    out: list[tuple[str, str]] = []
    for status, letter in _pairs(sanity, "sanity"):
        if not isinstance(status, str) or not status.strip():
            raise ValueError(f"sanity: {status!r} is not a status sentence")
        if letter not in options:
            raise ValueError(f"sanity: expected letter {letter!r} of {status!r} is not an option")
        out.append((status, letter))
    return out


def from_native(bt: Any) -> Task:
    """A Task around a C++ task (a built-in one, or one made from a task file): its perceiver
    and judge run in C++."""
    native = bt.task
    env_kwargs = json.loads(native.env_kwargs_json)
    obs_space = None
    if native.env_id:
        env = _core.make_env(native.env_id, native.env_kwargs_json)
        act_space, obs_space = env.action_space, env.observation_space
        options = {o.letter: _convert.space_value(act_space, list(o.action)) for o in native.options}
    else:  # a task file without environment: examined, not played
        options = {o.letter: o.action[0] if len(o.action) == 1 else list(o.action) for o in native.options}
    task = Task(
        perceive=None,
        rule=native.rule,
        options=options,
        option_text={o.letter: o.text for o in native.options},
        act_text={o.letter: o.act for o in native.options if o.act},
        sanity=list(native.sanity),
        env_id=native.env_id or None,
        env_kwargs=env_kwargs,
        max_steps=int(native.max_steps),
        name=native.name,
        summary=native.summary,
    )
    task.memory = bool(native.memory)
    task._native = native if native.has_perceiver else None
    task._builtin = bt
    task._obs_space = obs_space
    if obs_space is not None:
        task._obs_size = 1 if obs_space.kind == "Discrete" else int(np.prod(obs_space.shape))
    task.seeds = [int(s) for s in bt.seeds]
    task.target = bt.target
    return task
