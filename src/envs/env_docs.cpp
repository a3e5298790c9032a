// The documentation of every registered environment, one plain-text page per id in the
// sections of Gymnasium's env docstrings (description, spaces, rewards, start, end, arguments).
// Printed in a terminal and shown by Python's help(); the facts are those of our own env code
// (src/envs/*.cpp and the registry's kwargs, time limits and reward thresholds).
#include "meadow/env.hpp"

namespace meadow {
namespace {

struct EnvDoc {
  std::string_view id;
  std::string_view text;
};

constexpr EnvDoc kDocs[] = {
    {"CartPole-v1",
     "CartPole-v1: keep a pole upright on a cart by pushing the cart left or right.\n"
     R"doc(
Description:
  Gymnasium's classic control CartPole (after Barto, Sutton and Anderson, 1983), reproduced
  step for step. A pole is hinged on top of a cart that runs along a frictionless track. Each
  step pushes the cart with a force of 10 N to the left or the right and integrates the
  motion with one Euler step of 0.02 s. The pole starts almost upright; keep it from falling
  over and keep the cart on the track.

Action space:
  Discrete(2)
    0  push the cart to the left
    1  push the cart to the right

Observation space:
  Box([-4.8 -inf -0.41887903 -inf], [4.8 inf 0.41887903 inf], (4,), float32)
    index  meaning                           min      max
    0      cart position (m)                 -4.8     4.8
    1      cart velocity (m/s)               -inf     inf
    2      pole angle (rad, 0 = upright)     -0.4189  0.4189  (24 degrees)
    3      pole angular velocity (rad/s)     -inf     inf
  The bounds are twice the failure limits: an episode ends before they are reached.

Rewards:
  +1 for every step, including the one on which the episode terminates; 0 for any step
  taken after termination. With sutton_barto_reward: 0 per step, -1 on the terminating step and
  after it. Reward threshold: 475.

Starting state:
  Position, velocity, angle and angular velocity each drawn uniformly from [-0.05, 0.05].

Episode end:
  Terminated: the cart position leaves [-2.4, 2.4] or the pole angle leaves [-12, 12]
  degrees (+-0.2094 rad).
  Truncated: after 500 steps (the registry's time limit).

Arguments:
  sutton_barto_reward (bool, default false): use the reward of Sutton and Barto's book
    (0 per step, -1 on failure) instead of +1 per step.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps (a positive
  integer, or null for no time limit).
)doc"},

    {"MountainCar-v0",
     "MountainCar-v0: rock an underpowered car out of a valley up to the flag on the hill.\n"
     R"doc(
Description:
  Gymnasium's classic control MountainCar (Moore, 1990), reproduced step for step. A car sits
  at the bottom of a sinusoidal valley; its engine is too weak to climb the right-hand hill
  directly, so it has to swing back and forth to build up momentum. Each step:
    velocity += (action - 1) * 0.001 - 0.0025 * cos(3 * position), clipped to [-0.07, 0.07]
    position += velocity, clipped to [-1.2, 0.6]
  and a car that hits the left end (-1.2) while moving left stops there (velocity 0).

Action space:
  Discrete(3)
    0  accelerate to the left
    1  do not accelerate
    2  accelerate to the right

Observation space:
  Box([-1.2 -0.07], [0.6 0.07], (2,), float32)
    index  meaning             min    max
    0      car position        -1.2   0.6
    1      car velocity        -0.07  0.07

Rewards:
  -1 for every step, the last one included. Reward threshold: -110.

Starting state:
  Position drawn uniformly from [-0.6, -0.4]; velocity 0.

Episode end:
  Terminated: position >= 0.5 (the flag) with velocity >= goal_velocity.
  Truncated: after 200 steps (the registry's time limit).

Arguments:
  goal_velocity (number, default 0): the least velocity the car must have at the flag.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps (a positive
  integer, or null for no time limit).
)doc"},

    {"MountainCarContinuous-v0",
     "MountainCarContinuous-v0: the mountain car driven by a continuous engine force.\n"
     R"doc(
Description:
  Gymnasium's classic control Continuous Mountain Car (Moore, 1990), reproduced step for step.
  The same valley as MountainCar-v0, but the action is a force in [-1, 1] and fuel costs
  reward. Each step:
    velocity += force * 0.0015 - 0.0025 * cos(3 * position), clipped to [-0.07, 0.07]
    position += velocity, clipped to [-1.2, 0.6]
  and a car that hits the left end (-1.2) while moving left stops there (velocity 0). The
  state is kept in float32 after every step, as Gymnasium keeps it.

Action space:
  Box(-1.0, 1.0, (1,), float32)
    0  engine force: negative pushes left, positive pushes right (-1 to 1)
  Finite values outside [-1, 1] are accepted; the force is clipped to [-1, 1].

Observation space:
  Box([-1.2 -0.07], [0.6 0.07], (2,), float32)
    index  meaning             min    max
    0      car position        -1.2   0.6
    1      car velocity        -0.07  0.07

Rewards:
  -0.1 * action^2 every step, computed from the action as given (before clipping), and +100
  on the step that reaches the flag. Reward threshold: 90.

Starting state:
  Position drawn uniformly from [-0.6, -0.4]; velocity 0.

Episode end:
  Terminated: position >= 0.45 (the flag) with velocity >= goal_velocity.
  Truncated: after 999 steps (the registry's time limit).

Arguments:
  goal_velocity (number, default 0): the least velocity the car must have at the flag.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps (a positive
  integer, or null for no time limit).
)doc"},

    {"Acrobot-v1",
     "Acrobot-v1: swing the tip of a two-link arm up above a line by torquing its middle joint.\n"
     R"doc(
Description:
  Gymnasium's classic control Acrobot (Sutton, 1996; the "book" dynamics of Sutton and Barto),
  reproduced step for step. Two links, each 1 m long and 1 kg, hang from a fixed pivot; only
  the joint between them has a motor. Each step applies a torque of -1, 0 or +1 to that joint
  for 0.2 s, integrated with one Runge-Kutta (RK4) step, without torque noise. The angles are
  wrapped to [-pi, pi]; the angular velocities are clipped to +-4 pi and +-9 pi.

Action space:
  Discrete(3)
    0  torque -1 on the middle joint
    1  no torque
    2  torque +1 on the middle joint

Observation space:
  Box([-1.0 -1.0 -1.0 -1.0 -12.566371 -28.274334],
      [1.0 1.0 1.0 1.0 12.566371 28.274334], (6,), float32)
    index  meaning                                          min       max
    0      cos(theta1)                                      -1        1
    1      sin(theta1)                                      -1        1
    2      cos(theta2)                                      -1        1
    3      sin(theta2)                                      -1        1
    4      angular velocity of theta1 (rad/s)               -12.566   12.566  (4 pi)
    5      angular velocity of theta2 (rad/s)               -28.274   28.274  (9 pi)
  theta1 is the first link's angle from straight down; theta2 the second link's angle
  relative to the first (0 = in line).

Rewards:
  -1 for every step that does not reach the goal, 0 for the step that does.
  Reward threshold: -100.

Starting state:
  theta1, theta2 and both angular velocities each drawn uniformly from [-0.1, 0.1]: hanging
  nearly straight down, nearly at rest.

Episode end:
  Terminated: -cos(theta1) - cos(theta1 + theta2) > 1, i.e. the free end is more than one
  link length above the pivot.
  Truncated: after 500 steps (the registry's time limit).

Arguments:
  none. Every env also takes render_mode (null or "rgb_array") and max_episode_steps (a
  positive integer, or null for no time limit).
)doc"},

    {"Pendulum-v1",
     "Pendulum-v1: swing a pendulum up from a random angle and hold it upright.\n"
     R"doc(
Description:
  Gymnasium's classic control Pendulum, reproduced step for step. A rod of 1 m and 1 kg turns
  about a fixed pivot, driven by a torque about that pivot. Each step of 0.05 s:
    theta_dot += (3 g / 2 * sin(theta) + 3 * torque) * 0.05, clipped to [-8, 8]
    theta += theta_dot * 0.05
  with theta = 0 upright. The torque is too weak to lift the rod straight up from hanging
  down: it has to be swung up.

Action space:
  Box(-2.0, 2.0, (1,), float32)
    0  torque about the pivot (N m); positive increases theta (-2 to 2)
  Finite values outside [-2, 2] are accepted and clipped to [-2, 2].

Observation space:
  Box([-1.0 -1.0 -8.0], [1.0 1.0 8.0], (3,), float32)
    index  meaning                            min   max
    0      x = cos(theta)                     -1    1
    1      y = sin(theta)                     -1    1
    2      angular velocity (rad/s)           -8    8

Rewards:
  -(theta^2 + 0.1 * theta_dot^2 + 0.001 * torque^2) from the state before the step, with
  theta normalized to [-pi, pi) and the torque after clipping: from about -16.27 (hanging,
  spinning, full torque) to 0 (upright, still, no torque). No reward threshold.

Starting state:
  theta drawn uniformly from [-pi, pi], theta_dot from [-1, 1]. reset() takes only a seed
  (Gymnasium's x_init / y_init options are not offered).

Episode end:
  Terminated: never.
  Truncated: after 200 steps (the registry's time limit).

Arguments:
  g (number, default 10.0): the acceleration of gravity, m/s^2; must be finite.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps (a positive
  integer, or null for no time limit).
)doc"},

    {"FrozenLake-v1",
     "FrozenLake-v1: cross a frozen lake to the goal without falling into a hole.\n"
     R"doc(
Description:
  Gymnasium's toy text FrozenLake, reproduced step for step. The lake is a grid of cells:
  S start, F frozen (safe), H hole, G goal. The default board (map_name "4x4"):
      SFFF
      FHFH
      FFFH
      HFFG
  The ice is slippery by default: a move goes the intended way with probability success_rate
  (1/3) and to each of the two perpendicular directions with (1 - success_rate) / 2. A move
  into the edge of the lake leaves the agent where it is.

Action space:
  Discrete(4)
    0  left
    1  down
    2  right
    3  up

Observation space:
  Discrete(16)  (Discrete(rows * cols) for another board)
    index  meaning                                  min  max
    0      the agent's cell, row * cols + col       0    15
  The goal of the default board is cell 15. reset() and step() return info["prob"], the
  probability of the transition taken.

Rewards:
  reward_schedule [goal, hole, frozen], default [1, 0, 0]: the value for the kind of cell a
  move lands on (S counts as frozen). Reward threshold: 0.70.

Starting state:
  The S cell (drawn uniformly among the S cells of a custom board that has several).

Episode end:
  Terminated: the agent reaches G or falls into a hole.
  Truncated: after 100 steps (the registry's time limit).

Arguments:
  desc (list of strings or null, default null): a custom board, rows of S/F/H/G of equal
    length with at least one S; it takes precedence over map_name.
  map_name ("4x4", "8x8" or null; default "4x4"): a named board. null, with desc null too,
    draws a random 8x8 board (each cell frozen with probability 0.8, the goal reachable) from
    OS entropy, not from the reset seed.
  is_slippery (bool, default true): false makes every move go where intended.
  success_rate (number in [0, 1], default 1/3): the chance a slippery move goes as intended.
  reward_schedule (list of 3 numbers, default [1, 0, 0]): rewards for goal, hole, frozen.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},

    {"FrozenLake8x8-v1",
     "FrozenLake8x8-v1: cross the 8x8 frozen lake to the goal without falling into a hole.\n"
     R"doc(
Description:
  Gymnasium's toy text FrozenLake on its 8x8 board (FrozenLake-v1 with map_name "8x8" and a
  longer time limit), reproduced step for step. Cells: S start, F frozen, H hole, G goal.
      SFFFFFFF
      FFFFFFFF
      FFFHFFFF
      FFFFFHFF
      FFFHFFFF
      FHHFFFHF
      FHFFHFHF
      FFFHFFFG
  The ice is slippery by default: a move goes the intended way with probability success_rate
  (1/3) and to each perpendicular direction with (1 - success_rate) / 2. A move into the edge
  of the lake leaves the agent where it is. The env reports its id() as "FrozenLake-v1".

Action space:
  Discrete(4)
    0  left
    1  down
    2  right
    3  up

Observation space:
  Discrete(64)  (Discrete(rows * cols) for another board)
    index  meaning                                  min  max
    0      the agent's cell, row * cols + col       0    63
  The goal is cell 63. reset() and step() return info["prob"], the transition's probability.

Rewards:
  reward_schedule [goal, hole, frozen], default [1, 0, 0]: the value for the kind of cell a
  move lands on (S counts as frozen). Reward threshold: 0.85.

Starting state:
  The S cell, top left (cell 0).

Episode end:
  Terminated: the agent reaches G or falls into a hole.
  Truncated: after 200 steps (the registry's time limit).

Arguments:
  desc (list of strings or null, default null): a custom board; takes precedence over map_name.
  map_name ("4x4", "8x8" or null; default "8x8"): a named board; null (with desc null) draws a
    random 8x8 board from OS entropy.
  is_slippery (bool, default true): false makes every move go where intended.
  success_rate (number in [0, 1], default 1/3): the chance a slippery move goes as intended.
  reward_schedule (list of 3 numbers, default [1, 0, 0]): rewards for goal, hole, frozen.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},

    {"CliffWalking-v1",
     "CliffWalking-v1: walk along a cliff edge from the start to the goal without falling off.\n"
     R"doc(
Description:
  Gymnasium's toy text CliffWalking (Sutton and Barto, Example 6.6), reproduced step for step.
  A 4 x 12 grid: the start S is the bottom-left cell, the goal G the bottom-right one, and the
  ten cells between them on the bottom row are the cliff C:
      . . . . . . . . . . . .
      . . . . . . . . . . . .
      . . . . . . . . . . . .
      S C C C C C C C C C C G
  Stepping onto the cliff costs 100 and puts the agent back on S; the episode goes on. A move
  into the grid's edge leaves the agent in place. With is_slippery the move goes the intended
  way or to either perpendicular side, 1/3 each.

Action space:
  Discrete(4)
    0  up
    1  right
    2  down
    3  left

Observation space:
  Discrete(48)
    index  meaning                                  min  max
    0      the agent's cell, row * 12 + col         0    47
  S is cell 36 and G cell 47; the cliff cells (37 to 46) are never observed. reset() and
  step() return info["prob"], the probability of the transition taken.

Rewards:
  -1 for every step (the one reaching G included), -100 for a step onto the cliff.
  No reward threshold.

Starting state:
  Always cell 36 (row 3, column 0).

Episode end:
  Terminated: the agent reaches G (cell 47).
  Truncated: never by default; the registry sets no time limit.

Arguments:
  is_slippery (bool, default false): moves go the intended way or to either side, 1/3 each.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps (a positive
  integer, or null for no time limit).
)doc"},

    {"Taxi-v4",
     "Taxi-v4: pick a passenger up in a taxi and drop them off at their destination.\n"
     R"doc(
Description:
  Gymnasium's toy text Taxi (Dietterich, 2000), reproduced step for step. A 5 x 5 grid with
  walls ('|') and four marked squares R, G, Y, B:
      +---------+
      |R: | : :G|
      | : | : : |
      | : : : : |
      | | : | : |
      |Y| : |B: |
      +---------+
  R is at (row 0, col 0), G at (0, 4), Y at (4, 0), B at (4, 3). The passenger waits on one
  marked square and wants to go to another; the episode ends with a successful drop-off.

Action space:
  Discrete(6)
    0  move south (down)      3  move west (left)
    1  move north (up)        4  pick the passenger up
    2  move east (right)      5  drop the passenger off

Observation space:
  Discrete(500), the state ((taxi_row * 5 + taxi_col) * 5 + passenger) * 4 + destination:
    field        meaning                                      min  max
    taxi_row     0 = top                                      0    4
    taxi_col     0 = left                                     0    4
    passenger    0 R, 1 G, 2 Y, 3 B, 4 in the taxi            0    4
    destination  0 R, 1 G, 2 Y, 3 B                           0    3
  reset() and step() return info["prob"] and info["action_mask"]: 6 values, 1 for each action
  that would change the state.

Rewards:
  -1 per step; +20 for dropping the passenger at their destination; -10 for a pickup where the
  passenger is not waiting, or a drop-off with no passenger aboard or off the marked squares.
  Dropping the passenger on another marked square costs -1 and leaves them there.
  Reward threshold: 8.

Starting state:
  Drawn uniformly from the 300 states with the passenger waiting on a marked square, the
  destination a different marked square and the taxi anywhere.

Episode end:
  Terminated: the passenger is dropped off at their destination.
  Truncated: after 200 steps (the registry's time limit).

Arguments:
  is_rainy (bool, default false): a move goes the intended way with probability 0.8 and to
    each side with 0.1 (a side move Gymnasium's wall check refuses stays put); pickup and
    drop-off stay certain.
  fickle_passenger (bool, default false): with probability 0.3 per episode, the passenger
    switches to one of the other three destinations the first time the taxi moves with them.
  The 0.8 and 0.3 are fixed (Gymnasium's rainy_probability / fickle_probability are not taken).
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},

    {"LunarLander-v3",
     "LunarLander-v3: fire a lander's engines to bring it to rest on the pad between the flags.\n"
     R"doc(
Description:
  Gymnasium's Box2D LunarLander (by Oleg Klimov), with its terrain, random draws, observation
  and reward formulas. The lander starts at the top of the screen and falls under gravity onto
  a random moon surface; the landing pad, between two flags, is always in the middle at
  observation coordinates (0, 0). Engines are fully on or off (or throttled, when continuous).
  We simulate with Box2D 2.4 where Gymnasium uses pybox2d's 2.3, so episodes agree in law but
  not bit for bit. Wind and turbulence, when enabled, act only while neither leg touches down.

Action space:
  Discrete(4) (default)
    0  do nothing                     2  fire the main engine
    1  fire the left side engine      3  fire the right side engine
  Box(-1.0, 1.0, (2,), float32) with continuous=true (finite values are clipped to [-1, 1])
    0  main engine: <= 0 off, (0, 1] throttle 50% to 100%
    1  side engines: [-0.5, 0.5] off, below -0.5 the left one, above 0.5 the right one,
       throttle 50% to 100% with |value|

Observation space:
  Box([-2.5 -2.5 -10.0 -10.0 -6.2831855 -10.0 -0.0 -0.0],
      [2.5 2.5 10.0 10.0 6.2831855 10.0 1.0 1.0], (8,), float32)
    index  meaning                                                    min     max
    0      x: 0 = pad centre, +-1 = screen edges                      -2.5    2.5
    1      y: height above the pad, in half screen heights            -2.5    2.5
    2      horizontal velocity (scaled)                               -10     10
    3      vertical velocity (scaled)                                 -10     10
    4      angle (rad, 0 = upright)                                   -6.283  6.283
    5      angular velocity (scaled)                                  -10     10
    6      first leg touches the ground (1) or not (0)                0       1
    7      second leg touches the ground (1) or not (0)               0       1

Rewards:
  The change in shaping = -100 * distance to the pad - 100 * speed - 100 * |angle|
  + 10 per leg on the ground; minus 0.3 per step of the main engine and 0.03 per step of a
  side engine (times the throttle). A crash or leaving the screen sets the step's reward to
  -100; coming to rest sets it to +100. Reward threshold: 200.

Starting state:
  A random terrain; the lander at the top centre (y about 1.4), upright, pushed by a random
  force of up to 1000 on each axis. reset() returns the observation after one idle step.

Episode end:
  Terminated: the lander's body touches the ground (crash), |x| >= 1 (off screen), or the
  lander comes to rest (Box2D puts it to sleep).
  Truncated: after 1000 steps (the registry's time limit).

Arguments:
  continuous (bool, default false): the Box action space instead of Discrete(4).
  gravity (number, default -10.0): must be strictly between -12 and 0.
  enable_wind (bool, default false): add wind and turbulence.
  wind_power (number, default 15.0): the wind's strength (0 to 20 advised, not enforced).
  turbulence_power (number, default 1.5): the rotational turbulence (0 to 2 advised).
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},

    {"FunnelMaze-v0",
     "FunnelMaze-v0: reach the exit from a funnel room whose one way out leads away from it.\n"
     R"doc(
Description:
  meadow's own maze, not Gymnasium's, following the toy text conventions. The open room
  narrows up and to the right into a one-cell pocket two cells from the exit G, walled off
  from it; the only way out is the gap at the bottom of the room, which leads away from G,
  along the bottom corridor and up the right-hand one. A runner that always steps toward G is
  trapped in the pocket; one that remembers where it has been backs out. Shortest path: 14.
      #########
      #####.#G#
      ####..#.#
      ###...#.#
      ##....#.#
      #S....#.#
      ####.##.#
      #.......#
      #########

Action space:
  Discrete(4)
    0  left
    1  down
    2  right
    3  up
  A move into a wall leaves the runner in place.

Observation space:
  Discrete(81)  (Discrete(rows * cols) for another layout)
    index  meaning                                  min  max
    0      the runner's cell, row * 9 + col         0    80
  S is cell 46 (row 5, col 1), G cell 16 (row 1, col 7). info is empty.

Rewards:
  1 for the step that reaches G, 0 for every other step. No reward threshold.

Starting state:
  Always S. Nothing is random: the reset seed is accepted and changes nothing.

Episode end:
  Terminated: the runner reaches G.
  Truncated: after 200 steps (the registry's time limit).

Arguments:
  layout (list of strings or null, default null = the funnel): rows of '#' wall, '.' open,
    'S' start and 'G' exit, all the same length, walls all around the border, exactly one S
    and one G.
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},

    {"Parkour-v0",
     "Parkour-v0: switch among three lanes to dodge walls that come faster and faster.\n"
     R"doc(
Description:
  meadow's own real-time game, not Gymnasium's. A runner stands in one of three lanes; walls
  come one after another, each blocking two lanes and leaving one free, each speedup times
  as fast as the one before. A wall appears distance metres ahead and reaches the runner
  distance / speed seconds later: in the free lane the wall is cleared, otherwise the runner
  crashes; either way the next wall appears at once. The free lanes are drawn at reset from
  the seeded RNG, each different from the last, so standing still never clears two in a row.
  step() applies the action at once, then moves the game clock on by dt seconds; a real-time
  runner can instead advance the clock by measured seconds (envs/timed_env.hpp).

Action space:
  Discrete(3)
    0  stay
    1  move one lane left (nothing at the left edge)
    2  move one lane right (nothing at the right edge)

Observation space:
  Box(0.0, [2.0 20.0 60.75 1.0 1.0 1.0 6.0], (7,), float32)  (with the default arguments)
    index  meaning                                           min  max
    0      runner's lane (0 left, 1 middle, 2 right)         0    2
    1      the approaching wall's distance (m)               0    distance (20)
    2      its speed (m/s)                                   0    the last wall's (60.75)
    3      left lane blocked (1) or free (0)                 0    1
    4      middle lane blocked (1) or free (0)               0    1
    5      right lane blocked (1) or free (0)                0    1
    6      walls left, this one included                     0    obstacles (6)
  After the last wall everything but the lane is 0.

Rewards:
  +1 for each wall cleared, 0 for a crash and for every other step (a step long enough for
  several walls to arrive adds them up). The best return is obstacles (6). No threshold.

Starting state:
  The runner in the middle lane at game time 0, the first wall just appearing; the first
  wall always blocks the middle lane.

Episode end:
  Terminated: the last wall has reached the runner (cleared or not): about 6.84 s of game
  time, about 137 steps, with the defaults.
  Truncated: never by default; the registry sets no time limit.

Arguments:
  obstacles (integer 1 to 100, default 6): the number of walls.
  speed (number > 0, default 8.0): the first wall's speed, m/s.
  speedup (number >= 1, default 1.5): each wall this many times faster than the one before.
  distance (number > 0, default 20.0): how far ahead a wall appears, m.
  dt (number > 0, default 0.05): game seconds per step().
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},

    {"Shapes-v0",
     "Shapes-v0: press the shown shape's key before its shrinking window closes.\n"
     R"doc(
Description:
  meadow's own real-time game, not Gymnasium's. Each round starts with a quiet gap; then one
  of four shapes shows for the round's window, window * shrink^round seconds. Pressing that
  shape's key while it shows matches it and ends the round; a wrong key ends the round
  missed, and so does the window closing first. Keys pressed during the gap do nothing. The
  shapes are drawn at reset from the seeded RNG, each different from the one before.
  step() applies the action at once, then moves the game clock on by dt seconds; a real-time
  runner can instead advance the clock by measured seconds (envs/timed_env.hpp).

Action space:
  Discrete(5)
    0  red square key          3  green circle key
    1  green square key        4  wait (press nothing)
    2  red circle key

Observation space:
  Box(0.0, [4.0 1.0 6.0 1.0], (4,), float32)  (with the default arguments)
    index  meaning                                                 min  max
    0      shape shown: 0 red square, 1 green square,              0    4
           2 red circle, 3 green circle, 4 none
    1      seconds left in the window (0 in the gap)               0    window (1.0)
    2      round, from 0 (equals rounds once the game is over)     0    rounds (6)
    3      this round's window, s (0 once the game is over)        0    window (1.0)

Rewards:
  +1 for each shape matched in time, 0 otherwise (a wrong key or a missed window costs
  nothing but the round). The best return is rounds (6). No reward threshold.

Starting state:
  Round 0 at game time 0, in the gap before the first shape; the whole shape sequence is
  drawn at reset (the first uniformly of the four, each next one a different shape).

Episode end:
  Terminated: the last round has ended (matched or missed); with the defaults at most about
  5.19 s of game time, about 519 steps, when no key is pressed.
  Truncated: never by default; the registry sets no time limit.

Arguments:
  rounds (integer 1 to 100, default 6): the number of shapes.
  window (number > 0, default 1.0): the first round's window, s.
  shrink (number in (0, 1], default 0.8): each window this fraction of the one before.
  gap (number >= 0, default 0.25): quiet seconds before each shape.
  dt (number > 0, default 0.01): game seconds per step().
  Every env also takes render_mode (null or "rgb_array") and max_episode_steps.
)doc"},
};

}  // namespace

std::string_view env_doc(std::string_view id) {
  for (const EnvDoc& doc : kDocs)
    if (doc.id == id) return doc.text;
  return {};
}

}  // namespace meadow
