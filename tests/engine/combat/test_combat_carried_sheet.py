"""A ``[[combatants]]`` entry as a session left it: ``injuries``, ``conditions`` and ``dead``
(C8–C10), the keys ``rhuna-table sheet`` writes; each bad value is refused naming the key,
the rule and the fix."""

from __future__ import annotations

import pytest

from engine import CommandRejected, ConfigError, apply, load_table_text
from tests.harness.combat import combatant

BASE = """
[capabilities]
pathways = ["skill", "lore", "wild"]
[[heroes]]
id = "aria"
pathways = { skill = "control", lore = "versatility", wild = "impulse" }

[[combatants]]
id = "gob"
reflex = 1
might = 2
dodge = 2
parry = 1
fortitude = 1
speed = 4
"""


def test_injuries_conditions_and_death_load_from_the_table_file_c8_c10():
    state = load_table_text(
        BASE + 'injuries = [{ type = "bleeding", hits = 2, cause = "captain" },'
        ' { type = "sprained", hits = 1, detail = "leg" }]\n'
        + 'conditions = [{ name = "cursed", attribute = "might", source = "the witch" },'
        ' { name = "fatigued", level = 2 }]\n' + "dead = true\n",
        "t.toml",
    )
    gob = combatant(state, "gob")
    assert gob.dead and gob.injury_count == 3
    assert (gob.injuries[0].type, gob.injuries[0].hits, gob.injuries[0].source) == (
        "bleeding",
        2,
        "captain",
    )
    assert gob.injuries[1].detail == "leg"
    assert [(k.name, k.level, k.attribute) for k in gob.conditions] == [
        ("cursed", 1, "might"),
        ("fatigued", 2, None),
    ]
    # the dead stay dead in the next session (C9)
    with pytest.raises(CommandRejected) as e:
        apply(state, {"cmd": "injure", "combatant": "gob", "type": "burned"})
    assert e.value.violation.rule == "C9"


def test_an_inline_sheet_does_not_take_the_sessions_keys():
    """``add_combatant`` and ``start_combat``'s ``add`` start a combatant unhurt."""
    state = load_table_text(BASE, "t.toml")
    with pytest.raises(CommandRejected):
        apply(
            state,
            {
                "cmd": "start_combat",
                "add": [
                    {
                        "id": "orc",
                        "reflex": 1,
                        "might": 1,
                        "dodge": 1,
                        "parry": 1,
                        "fortitude": 1,
                        "speed": 1,
                        "dead": True,
                    }
                ],
                "seed": 1,
            },
        )


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        ("injuries = 3", "combatants[0].injuries must be a list of tables"),
        ('injuries = [{ type = "bruise" }]', "injuries[0].type = 'bruise' is not an injury type"),
        ('injuries = [{ type = "burned", hits = 0 }]', "injuries[0].hits must be"),
        ('injuries = [{ type = "burned", where = "arm" }]', "injuries[0].where: unknown key"),
        ('injuries = [{ type = "burned", detail = 3 }]', "injuries[0].detail must be text"),
        ('conditions = [{ name = "sleepy" }]', "conditions[0].name = 'sleepy' is not a condition"),
        ('conditions = [{ name = "prone", level = 2 }]', "prone has at most 1 (C10)"),
        ('conditions = [{ name = "cursed" }]', "Fix: add attribute = one of"),
        ('conditions = [{ name = "prone", attribute = "might" }]', "Fix: leave it out"),
        ('conditions = [{ name = "prone" }, { name = "prone" }]', "prone is listed twice"),
        ('dead = "yes"', "combatants[0].dead must be true or false"),
        ("dead = true", "only injuries kill (C9, I-C9a). Fix: list the injuries"),
        ('injuries = [{ type = "burned", hits = 3 }]', "is dead (C9). Fix: add dead = true"),
    ],
)
def test_a_bad_carried_value_names_the_key_the_rule_and_the_fix(extra, needle):
    with pytest.raises(ConfigError) as e:
        load_table_text(BASE + extra + "\n", "t.toml")
    assert needle in str(e.value) and str(e.value).startswith("t.toml: combatants[0]")
