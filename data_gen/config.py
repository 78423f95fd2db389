"""Typed, frozen configuration of the data generator (DESIGN §2.2: convert to this once at the top).

Usable directly (`GenDataConfig(seed=1, n_users=40)`) and as a hydra structured config
(`OmegaConf.structured(GenDataConfig)`). Defaults give about 8000 train / 800 validation /
800 test labeled prefixes in a few seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from data_gen.world.history import HistoryParams
from data_gen.world.personas import PersonaParams
from data_gen.world.tasks import TaskParams

# Relative sampling weights of the case types among those a task group can build. Tuned so the
# default dataset is ~45% silent / ~25% supplement / ~30% intervene (the card reports the result).
# `irrelevant` only occurs in tasks from a domain the user has no memory for (p_unfamiliar_task).
DEFAULT_CASE_WEIGHTS: dict[str, float] = {
    "conflict": 14.0,
    "misstated_call": 6.0,
    "revised_old": 14.0,
    "omitted": 14.0,
    "misstated_message": 9.0,
    "consistent": 9.0,
    "revised_current": 9.0,
    "habit": 14.0,
    "explicit_override": 7.0,
    "already_delivered": 6.0,
    "irrelevant": 1.0,
    "request_only": 2.0,
}


@dataclass(frozen=True)
class GenDataConfig:
    # master seed: same seed -> identical rows; each user draws from its own seeded stream
    seed: int = 0
    # number of simulated users (personas); users, not prefixes, are the unit of the split
    n_users: int = 480
    # task groups per user (Persona2Web has 3: A/B/C); each group has its own domain when possible
    tasks_per_user: int = 4
    # labeled trajectory prefixes per task group (each samples a level and a case type)
    prefixes_per_task: int = 5
    # fractions of users held out for validation and test (their tasks never appear in train)
    val_user_fraction: float = 1 / 12
    test_user_fraction: float = 1 / 12
    # where build_dataset writes the DatasetDict and its card (relative to the working directory)
    out_dir: str = "artifacts/data/pulse_v1"
    # events per prefix, request included (1 = the request alone); must be >= 4 for every case
    max_prefix_events: int = 6
    # memory items per snapshot, task items + distractors (the task's own items always fit)
    min_snapshot_items: int = 3
    max_snapshot_items: int = 12
    # probability that a request does not mention a non-target task slot at all (req "-")
    p_absent_slot: float = 0.15
    # probability that a task is in a domain the user has no history for (memory irrelevant)
    p_unfamiliar_task: float = 0.07
    # history entries per active domain (inclusive range) and generic noise entries per user
    min_history_per_domain: int = 18
    max_history_per_domain: int = 30
    noise_history_per_user: int = 30
    # domain names from data_gen.world.vocab_web.WEB_DOMAINS; empty = all of them
    domains: tuple[str, ...] = ()
    # relative weights of the case types (see DEFAULT_CASE_WEIGHTS); 0 disables a case
    case_weights: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_CASE_WEIGHTS))
    # synthetic: the self-contained generated world; persona2web: the first users are anchored on
    # Persona2Web's 50 real users and 150 task groups (eval/real/persona2web/synthetic_world.py),
    # the rest generated
    source: str = "synthetic"
    # persona2web only: folder holding persona2web/ ("" = $PULSE_DATA_DIR)
    data_dir: str = ""

    def __post_init__(self) -> None:
        if self.n_users < 1 or self.tasks_per_user < 1 or self.prefixes_per_task < 1:
            raise ValueError("n_users, tasks_per_user and prefixes_per_task must be >= 1")
        if not (
            0 <= self.val_user_fraction
            and 0 <= self.test_user_fraction
            and self.val_user_fraction + self.test_user_fraction < 1
        ):
            raise ValueError("val/test user fractions must be >= 0 and sum to < 1")
        if self.max_prefix_events < 4:
            raise ValueError("max_prefix_events must be >= 4 (misstated_call needs request + 3 events)")
        if not 1 <= self.min_snapshot_items <= self.max_snapshot_items:
            raise ValueError("need 1 <= min_snapshot_items <= max_snapshot_items")
        if self.source not in ("synthetic", "persona2web"):
            raise ValueError(f"source: {self.source!r} not in ('synthetic', 'persona2web')")
        if self.min_history_per_domain < 13 or self.max_history_per_domain < self.min_history_per_domain:
            raise ValueError("history per domain: need 13 <= min <= max (a revision needs 13 observations)")

    def persona_params(self) -> PersonaParams:
        return PersonaParams()

    def history_params(self) -> HistoryParams:
        return HistoryParams(
            min_entries_per_domain=self.min_history_per_domain,
            max_entries_per_domain=self.max_history_per_domain,
            noise_entries=self.noise_history_per_user,
        )

    def task_params(self) -> TaskParams:
        return TaskParams(p_unfamiliar=self.p_unfamiliar_task)
