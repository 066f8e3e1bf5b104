"""Home Assistant MQTT discovery: the table as one device with a sensor per number people watch.

Each sensor reads a retained state topic the bridge publishes anyway, through a
``value_template``, so discovery adds no traffic of its own. Availability is the
bridge's ``status`` topic (its last will), so HA greys the table out when the
service or its network is gone. Config topics are
``<discovery_topic>/sensor/rhuna_<table>/<object>/config``; a hero who left the
table gets an empty retained payload there, which is how HA removes an entity.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from companion.mqtt.config import HomeAssistantConfig
from companion.mqtt.topics import Topics

_NOT_ID = re.compile(r"[^A-Za-z0-9_-]")

#: a template's answer when there is nothing to show: HA's MQTT sensor reads "None" as unknown
_NONE = "None"


@dataclass(frozen=True, slots=True)
class Sensor:
    """One HA sensor: which retained topic it reads and how."""

    key: str
    name: str
    topic: str
    template: str
    unit: str | None = None
    icon: str | None = None
    numeric: bool = True


def ha_id(name: str) -> str:
    """An id HA accepts in a discovery topic and a unique_id (letters, digits, '_', '-')."""
    return _NOT_ID.sub("_", name)


def node_id(topics: Topics) -> str:
    return f"rhuna_{ha_id(topics.table_id)}"


def hero_sensors(topics: Topics, hero_id: str, name: str) -> list[Sensor]:
    t = topics.hero(hero_id)
    h = ha_id(hero_id)
    return [
        Sensor(f"{h}_fatigue", f"{name} Fatigue", t, "{{ value_json.fatigue }}", icon="mdi:sleep"),
        Sensor(f"{h}_strain", f"{name} Strain", t, "{{ value_json.strain }}", icon="mdi:weight"),
        Sensor(f"{h}_wounds", f"{name} Wounds", t, "{{ value_json.wounds }}", icon="mdi:bandage"),
        Sensor(
            f"{h}_favor", f"{name} Favor", t, "{{ value_json.favor }}", icon="mdi:star-four-points"
        ),
    ]


def table_sensors(topics: Topics) -> list[Sensor]:
    perf, odds = topics.section("performance"), topics.section("odds")
    time, combat = topics.section("time"), topics.section("combat")
    # the first Intersect group: with no Intersect (the usual case) the only one
    total = (
        "{% if value_json and value_json.groups %}"
        "{{ value_json.contributions | selectattr('hero', 'in', value_json.groups[0])"
        " | map(attribute='total') | sum }}"
        f"{{% else %}}{_NONE}{{% endif %}}"
    )
    return [
        Sensor("performance_total", "Performance total", perf, total, icon="mdi:sigma"),
        Sensor(
            "performance_difficulty",
            "Difficulty",
            perf,
            "{{ value_json.difficulty if value_json else None }}",
            icon="mdi:target",
        ),
        # docs/odds.md: best play is the headline, as drawn the secondary figure
        Sensor(
            "best_play_odds",
            "Best play odds",
            odds,
            "{{ value_json.groups[0].best_play.percent"
            " if value_json and value_json.groups else None }}",
            unit="%",
            icon="mdi:dice-multiple",
        ),
        Sensor(
            "as_drawn_odds",
            "As drawn odds",
            odds,
            "{{ value_json.groups[0].as_drawn.percent"
            " if value_json and value_json.groups else None }}",
            unit="%",
            icon="mdi:dice-multiple-outline",
        ),
        Sensor(
            "time_band",
            "Time band",
            time,
            "{{ value_json.band if value_json else None }}",
            icon="mdi:weather-sunset",
            numeric=False,
        ),
        Sensor(
            "day", "Day", time, "{{ value_json.day if value_json else None }}", icon="mdi:calendar"
        ),
        Sensor(
            "weather",
            "Weather",
            time,
            "{{ value_json.weather.name if value_json and value_json.weather else None }}",
            icon="mdi:weather-cloudy",
            numeric=False,
        ),
        Sensor(
            "combat_round",
            "Combat round",
            combat,
            "{{ value_json.round if value_json else None }}",
            icon="mdi:sword-cross",
        ),
        Sensor(
            "combat_tick",
            "Combat tick",
            combat,
            "{{ value_json.tick if value_json else None }}",
            icon="mdi:clock-outline",
        ),
    ]


def sensors(view: Mapping[str, Any], topics: Topics) -> list[Sensor]:
    """Every sensor the table has now: four per hero, then the table's own."""
    out: list[Sensor] = []
    for hero_id, hero in view["heroes"].items():
        out += hero_sensors(topics, hero_id, str(hero.get("name") or hero_id))
    return out + table_sensors(topics)


def config_topic(ha: HomeAssistantConfig, topics: Topics, sensor: Sensor) -> str:
    return f"{ha.discovery_topic}/sensor/{node_id(topics)}/{sensor.key}/config"


def config_filter(ha: HomeAssistantConfig, topics: Topics) -> str:
    """Matches every config topic of this table (to find ones no longer wanted)."""
    return f"{ha.discovery_topic}/+/{node_id(topics)}/+/config"


def discovery_messages(
    view: Mapping[str, Any], topics: Topics, ha: HomeAssistantConfig, version: str
) -> dict[str, dict[str, Any]]:
    """Config topic → retained discovery payload, for every sensor of the table now."""
    device = {
        "identifiers": [node_id(topics)],
        "name": f"Rhuna table {topics.table_id}",
        "manufacturer": "Rhuna table companion",
        "model": "rhuna-table",
        "sw_version": version,
    }
    out: dict[str, dict[str, Any]] = {}
    for s in sensors(view, topics):
        payload: dict[str, Any] = {
            "name": s.name,
            "unique_id": f"{node_id(topics)}_{s.key}",
            "state_topic": s.topic,
            "value_template": s.template,
            "availability_topic": topics.status,
            "payload_available": "online",
            "payload_not_available": "offline",
            "device": device,
            "origin": {"name": "rhuna-table", "sw_version": version},
        }
        if s.numeric:
            payload["state_class"] = "measurement"
        if s.unit:
            payload["unit_of_measurement"] = s.unit
        if s.icon:
            payload["icon"] = s.icon
        out[config_topic(ha, topics, s)] = payload
    return out
