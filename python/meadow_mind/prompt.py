"""A self-contained guide for a code agent wiring a new game with this package."""

from __future__ import annotations

AI_PROMPT = """# Wiring a new game into meadow-mind (Python)

meadow-mind plays a game with words. Each step a perceiver turns the observation into one
status sentence; a language model reads the task's rule (one sentence plus lettered options)
and that sentence and answers an option letter in ONE forward pass; the letter maps to an env
action. No reward, no training: behaviour changes by editing words. Follow the five steps in
order and do not skip the exam.

    from meadow_mind import MeadowMind, Task, envs, run

## 1. Explore the actions

Make the env (`gymnasium.make(id)` or `meadow_mind.envs.make(id)`) and look at
`env.action_space` and `env.observation_space`. Step each action a few times from a fixed
seed and write down what each does in plain words ("0 pushes the cart to the left"). Keep 2
to 6 actions worth choosing; each becomes an option letter A..F mapped to its action.

## 2. Write perception words

`perceive(obs) -> str`: ONE short plain-English sentence holding exactly what the rule needs.
- Bucket continuous values into a few words ("left", "centre", "right"; "slow", "fast");
  never print raw floats as the only information.
- Always include a velocity or trend ("moving left", "falling fast").
- Use the SAME words as the rule and option texts; the model matches words.
- Keep it short and deterministic.

## 3. Imprint the rule as multiple choice

`rule`: one sentence saying which option to take when, in the perception words: "If the pole
leans or falls to the left, choose A; if it leans or falls to the right, choose B." Relational
rules work too ("push in the same direction the car is moving"). Option texts are short:
`option_text={"A": "push the cart to the left", "B": "push the cart to the right"}`.

## 4. Decide on memory

If a reactive player can loop (mazes, dead ends), pass `memory=True` and
`mem_key=lambda obs: obs` (a hashable state name). The perceiver then takes `(obs, task)` and
can say "you have been here before" when `task.seen(task.mem_key(obs))`; the rule says what to
do then. `run` clears memory at every reset (`task.forget()`).

## 5. Take the exam

Give 6 to 20 exam items `sanity=[(status sentence, expected letter), ...]` covering every option
and the edge cases, then `mind.check(task)`. It raises `meadow_mind.ExamFailed` listing each
miss (expected, chosen, probabilities) when more than one item fails. Fix failures by changing
WORDS (perception, rule, option text), never by special-casing code. Play only after it passes.

## Complete example

    import gymnasium as gym
    from meadow_mind import MeadowMind, Task, run

    def perceive(obs):
        lean = obs[2] + 0.5 * obs[3]
        side = "left" if lean < 0 else "right"
        speed = "fast" if abs(obs[3]) > 0.5 else "slowly"
        return f"The pole leans to the {side} and falls {speed}."

    task = Task(
        perceive=perceive,
        rule="If the pole leans or falls to the left, choose A; "
             "if it leans or falls to the right, choose B.",
        options={"A": 0, "B": 1},
        option_text={"A": "push the cart to the left", "B": "push the cart to the right"},
        sanity=[("The pole leans to the left and falls fast.", "A"),
                ("The pole leans to the right and falls slowly.", "B"),
                ("The pole leans to the right and falls fast.", "B"),
                ("The pole leans to the left and falls slowly.", "A")],
        env_id="CartPole-v1",
        judge=lambda ep: (len(ep.steps) >= 500, f"balanced {len(ep.steps)} steps"),
    )
    mind = MeadowMind()
    mind.check(task)
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=42)
    for _ in range(500):
        action, info = mind.decide(task, obs)
        obs, reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    # or: run(task, env=env, gif="cartpole.gif")
"""


def ai_prompt() -> str:
    """The guide for a code agent wiring a new game (AI_PROMPT)."""
    return AI_PROMPT
