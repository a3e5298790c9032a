"""meadow-mind: a language-rule decision mind.

Write the policy as one sentence, describe the situation as one sentence; a local language
model reads both and answers an option letter in a single forward pass.

    from meadow_mind import MeadowMind, tasks

    mind = MeadowMind()                    # loads once, runs on-device
    task = tasks.mountaincar()
    mind.check(task)                       # sanity gate: decision-table exam
    action, info = mind.decide(task, obs)  # obs in, env action out
"""

from ._blas import choose_core as _choose_core

_choose_core()  # before the extension loads OpenBLAS

from . import envs, tasks  # noqa: E402
from ._core import MeadowError  # noqa: E402
from .mind import Drafted, ExamFailed, ExamResult, Generated, Info, MeadowMind  # noqa: E402
from .policy import MindPolicy  # noqa: E402
from .prompt import AI_PROMPT, ai_prompt  # noqa: E402
from .runner import Episode, Episodes, Step, Verdict, play, run  # noqa: E402
from .task import Task  # noqa: E402

from . import realtime  # noqa: E402  (after the modules it uses)

__version__ = "0.1.0"

__all__ = [
    "AI_PROMPT",
    "Episode",
    "Drafted",
    "Episodes",
    "ExamFailed",
    "ExamResult",
    "Generated",
    "Info",
    "MeadowError",
    "MeadowMind",
    "MindPolicy",
    "Step",
    "Task",
    "Verdict",
    "ai_prompt",
    "envs",
    "play",
    "realtime",
    "run",
    "tasks",
]
