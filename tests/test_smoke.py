from tests.harness import run


def test_p19_a_plain_performance_resolves(example_state):
    state, events = run(
        example_state,
        {"cmd": "begin_performance", "difficulty": 3},
        {
            "cmd": "declare",
            "hero": "aria",
            "shade": "control",
            "capability": "skill",
            "action": "target",
        },
        *({"cmd": "draw", "hero": "aria", "seed": i} for i in range(4)),
        {"cmd": "resolve"},
    )
    assert state.performance is not None and state.performance.resolved
    assert [e.type for e in events].count("token_drawn") == 4
