"""MeadowMind: a language model that reads a task's rule and a status sentence and answers an
option letter in one forward pass.

    mind = MeadowMind()                    # loads once, runs on this machine's CPU
    mind.check(task)                       # the exam; raises ExamFailed listing every miss
    action, info = mind.decide(task, obs)  # obs in, env action out
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any

from . import _core
from .task import Task


def _options(options: dict[str, Any]) -> Any:
    """MeadowMind's keyword options onto the C++ options (one definition: meadow/decision.hpp's
    DecideOptions and meadow/mind.hpp's MindOptions, bound in mind_bindings.cpp)."""
    o, d = _core.MindOptions(), _core.DecideOptions()
    fields = {k: d for k in dir(d) if not k.startswith("_")}
    fields.update({k: o for k in dir(o) if not k.startswith("_") and k != "decide"})
    for key, value in options.items():
        if key not in fields:
            raise TypeError(f"unknown option {key!r}; known: {', '.join(sorted(fields))}")
        if key == "system" and value is None:
            continue  # the default system message
        try:
            setattr(fields[key], key, value)
        except TypeError:
            raise TypeError(f"option {key!r}: {value!r} is not of its type") from None
    o.decide = d
    return o


class Info(dict):
    """What one decision saw and answered; a dict whose keys are also attributes.

    Keys: ``status`` (the perceiver's sentence), ``letter``, ``probs`` ({letter: probability},
    option order, sums to 1), ``margin`` (top-1 minus top-2), ``entropy`` (0 certain .. 1
    uniform), ``coherence`` (Σ of the step-0 draft; NaN when off), ``lat`` (seconds),
    ``lat_ms`` (tokenize + forward + softmax) and ``conditions``: for a meadow-reader, why the
    letter was chosen — each condition it read as ``{"letter", "text", "p"}`` (P(holds) in this
    situation), in the options' order; empty for a model that answers the letter directly.
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @classmethod
    def from_core(cls, d: Any) -> Info:
        return cls(
            status=d.status,
            letter=d.letter,
            probs=dict(d.probs),
            margin=d.margin,
            entropy=d.entropy,
            coherence=d.coherence,
            lat=d.lat_ms / 1000.0,
            lat_ms=d.lat_ms,
            conditions=[{"letter": letter, "text": text, "p": p} for letter, text, p in d.conditions],
        )


class ExamResult:
    """Every exam item decided: ``ok``, ``n_right``, ``n_total``, ``max_misses``,
    ``decisions`` (an Info per item), ``misses`` ([(status, expected, Info)]) and ``reading``
    (how a meadow-reader read the rule; "" for a model that answers the letter)."""

    def __init__(self, r: Any, table: str) -> None:
        self.ok: bool = r.ok
        self.n_right: int = r.n_right
        self.n_total: int = r.n_total
        self.max_misses: int = r.max_misses
        self.reading: str = r.reading
        self.decisions: list[Info] = [Info.from_core(d) for d in r.decisions]
        self.misses: list[tuple[str, str, Info]] = [(s, e, Info.from_core(d)) for s, e, d in r.misses]
        self.table = table

    def __repr__(self) -> str:
        return f"ExamResult(ok={self.ok}, n_right={self.n_right}, n_total={self.n_total})"


class ExamFailed(Exception):
    """The exam failed: more misses than allowed. ``str(e)`` lists every miss (status,
    expected, chosen, probabilities); ``e.result`` is the ExamResult."""

    def __init__(self, message: str, result: ExamResult) -> None:
        super().__init__(message)
        self.result = result


class MeadowMind:
    """The mind, loaded once.

    Args:
        model_path: a GGUF file or a known model name ("nano", "smollm2-135m"); ``None``
            resolves as the command line does: $MEADOW_MIND_MODEL, the cache dir's
            default.gguf, then the embedded meadow-nano.
        threads: 0 = automatic. answer_slot: mask tokens in the answer slot (1..3).
        prefix_cache: encode each task's rule and options once (default on).
        want_coherence: compute Σ coherence (one extra output row per slot position).
        max_misses: misses the exam allows (default 1). system: the system message.
        lora: a LoRA adapter GGUF applied on top of the model.
        exit_margin: early exit (0 = off): stop at the first layer whose letter margin reaches
            this. It costs accuracy (docs/measurements.md states how much).
        float_recheck: on models whose passes take the integer kernels (quantized weights at
            least 512 wide: SmolLM2, 7B-class models), a decision whose letter margin is under
            this is decided again in float (default 0.1; 0 never, 1 always). Models in float
            (meadow-nano) ignore it.

    Decisions release the GIL: one MeadowMind may be used from several threads.
    """

    def __init__(self, model_path: str | None = None, **options: Any) -> None:
        opts = _options(options)
        if model_path is not None and not isinstance(model_path, str):
            model_path = str(model_path)  # a pathlib.Path
        try:
            self._mind = _core.Mind(model_path or "", opts)
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None

    @property
    def model_path(self) -> str:
        """The GGUF file this mind loaded."""
        return self._mind.model_path

    @property
    def arch(self) -> str:
        return self._mind.arch

    @property
    def threads(self) -> int:
        return self._mind.threads

    def decide(self, task: Task, obs: Any) -> tuple[Any, Info]:
        """One decision: perceive ``obs``, one forward pass, the chosen option's action.

        Returns ``(action, info)``; the action is the option's value (built-in tasks: an int
        for Discrete, a float32 NumPy array for Box).
        """
        _need_task(task)
        status = task.status(obs)
        d = self._mind.decide_status(task.core(), status)
        return task.action(d.letter), Info.from_core(d)

    def decide_batch(self, task: Task, observations: Iterable[Any]) -> list[tuple[Any, Info]]:
        """Several observations of one task (e.g. a vector env's) in one forward pass.

        Perceived in order (working memory sees them one after another), then decided together
        against the task's cached prefix. Each answer is ``decide``'s (to float rounding); each
        ``info.lat_ms`` is the whole batch's.
        """
        _need_task(task)
        statuses = [task.status(obs) for obs in observations]
        ds = self._mind.decide_status_batch(task.core(), statuses)
        return [(task.action(d.letter), Info.from_core(d)) for d in ds]

    def decide_status(self, task: Task, status: str) -> Info:
        """The decision for a status sentence directly (no perceiver)."""
        _need_task(task)
        if not isinstance(status, str):
            raise TypeError(f"status must be a str, got {type(status).__name__}")
        return Info.from_core(self._mind.decide_status(task.core(), status))

    def reading(self, task: Task) -> str | None:
        """How a meadow-reader reads the task's rule: each option with its condition(s), the
        default, words it could not place. ``None`` for a model that answers the letter
        directly. Raises ValueError for a rule the reader cannot decide from."""
        _need_task(task)
        try:
            return self._mind.reading(task.core())
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None

    def exam(self, task: Task, max_misses: int | None = None) -> ExamResult:
        """Every exam item decided; never raises for a failing exam."""
        _need_task(task)
        core = task.core()
        r = self._mind.exam(core, max_misses)
        return ExamResult(r, self._mind.exam_table(core, r))

    def check(self, task: Task, max_misses: int | None = None) -> tuple[bool, int]:
        """The exam. Returns ``(True, n_right)``; raises ExamFailed listing every miss when
        more than ``max_misses`` items fail."""
        _need_task(task)
        core = task.core()
        if not task.sanity:
            raise ValueError(f"task {task.name} has no exam (sanity is empty)")
        r, failure = self._mind.check(core, max_misses)
        if failure is not None:
            raise ExamFailed(failure, ExamResult(r, self._mind.exam_table(core, r)))
        return r.ok, r.n_right

    def generate(
        self,
        prompt: str | list[dict[str, str]],
        max_tokens: int = 128,
        *,
        raw: bool = False,
        block: int = 32,
        steps: int = 0,
        threshold: float = 0.0,
        confidence: str = "probability",
        temperature: float = 0.0,
        top_p: float = 1.0,
        seed: int = 0,
        stop: str | list[str] | None = None,
        cache: bool = True,
        threads: int = 1,
    ) -> Generated:
        """An answer: block diffusion with a K/V cache (dream, llada) or token by token
        (qwen2, llama), as ``meadow-mind generate``.

        ``prompt``: a user message, or chat messages ``[{"role": ..., "content": ...}]``;
        with ``raw=True`` a plain text without the chat template. Diffusion: ``block`` tokens
        a block, ``steps`` per block (0: one token a step) or ``threshold`` (parallel mode);
        ``confidence`` "probability", "margin" or "entropy". Sampling with ``temperature`` >
        0 and ``top_p``, reproducible per ``seed``. Raises ValueError for bad options.
        """
        messages = _messages(prompt) if not raw else []
        if raw and not isinstance(prompt, str):
            raise TypeError("raw=True takes a str prompt")
        stops = [stop] if isinstance(stop, str) else list(stop or [])
        try:
            text, reason, tokens, n_prompt, n_steps, passes, prefill_ms, ms = self._mind.generate(
                messages,
                prompt if raw else "",
                max_tokens,
                block,
                steps,
                threshold,
                confidence,
                temperature,
                top_p,
                seed,
                stops,
                cache,
                threads,
            )
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None
        return Generated(text, reason, list(tokens), n_prompt, n_steps, passes, prefill_ms, ms)

    def draft(self, prompt: str | list[dict[str, str]], length: int = 32) -> Drafted:
        """The step-0 draft: one pass over the prompt and ``length`` masks; its text, each
        position's confidence and their mean, the coherence Σ."""
        try:
            text, conf, coherence, ms = self._mind.draft(_messages(prompt), length)
        except _core.MeadowError as e:
            raise ValueError(str(e)) from None
        return Drafted(text, list(conf), coherence, ms)

    def __repr__(self) -> str:
        return f"MeadowMind({self.model_path!r}, arch={self.arch!r}, threads={self.threads})"


@dataclass
class Generated:
    """What ``MeadowMind.generate`` wrote."""

    text: str
    finish_reason: str  # "stop" (end token or stop string) or "length"
    tokens: list[int]
    prompt_tokens: int
    steps: int
    passes: int
    prefill_ms: float
    ms: float


@dataclass
class Drafted:
    """The step-0 draft: text, per-position confidence, coherence Σ (their mean)."""

    text: str
    confidence: list[float]
    coherence: float
    ms: float


def _messages(prompt: Any) -> list[tuple[str, str]]:
    if isinstance(prompt, str):
        return [("user", prompt)]
    out = []
    for m in prompt:
        if (
            not isinstance(m, dict)
            or not isinstance(m.get("role"), str)
            or not isinstance(m.get("content"), str)
        ):
            raise TypeError('messages must be dicts {"role": str, "content": str}')
        out.append((m["role"], m["content"]))
    if not out:
        raise ValueError("no messages")
    return out


def _need_task(task: Any) -> None:
    if not isinstance(task, Task):
        raise TypeError(f"task must be a meadow_mind.Task, got {type(task).__name__}")


__all__ = ["MeadowMind", "Info", "ExamResult", "ExamFailed", "Generated", "Drafted"]
