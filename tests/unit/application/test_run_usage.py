"""What a run reports spending: the agent's tokens, the reviewer models' tokens apart, and the cost."""

from __future__ import annotations

from dataclasses import dataclass, field

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.run_context import emit_run_event
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.events import McpSampling
from quorum.domain.responses import RunUsage, Usage
from quorum.domain.tools import RiskLevel
from tests.fakes import (
    FakeGateway,
    FakeTools,
    JsonSchema,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
    calls,
    text,
)


@dataclass
class FixedPrices:
    """USD per million tokens by model id; models not listed are unknown."""

    per_mtok: dict[str, tuple[float, float]]
    asked: list[str] = field(default_factory=list)

    def cost(self, model_id: str, usage: Usage) -> float | None:
        self.asked.append(model_id)
        if model_id not in self.per_mtok:
            return None
        inp, out = self.per_mtok[model_id]
        return (usage.input_tokens * inp + usage.output_tokens * out) / 1_000_000


async def _write(_: dict[str, object]) -> str:
    return "written"


def _agent(reviewer: ScriptedReviewer, observer: RecordingObserver, prices: FixedPrices | None) -> RunAgent:
    session = ScriptedSession(
        [
            calls(("write", {}), usage=Usage(input_tokens=1000, output_tokens=100)),
            calls(("write", {}), usage=Usage(input_tokens=2000, output_tokens=200)),
            text("done", usage=Usage(input_tokens=3000, output_tokens=300)),
        ]
    )
    tools = FakeTools()
    tools.add("write", _write, risk=RiskLevel.HIGH)
    return RunAgent(
        gateway=FakeGateway(session),
        executor=tools,
        schema=JsonSchema(),
        reviewer=reviewer,
        observer=observer,
        prices=prices,
    )


def _reviewer() -> ScriptedReviewer:
    return ScriptedReviewer(vote_model="fake:judge", vote_usage=Usage(input_tokens=400, output_tokens=20))


async def test_reviewer_tokens_add_up_apart_from_the_agents() -> None:
    observer = RecordingObserver()
    result = await _agent(_reviewer(), observer, None).execute(RunRequest(task="t", model_id="fake:agent"))
    expected = RunUsage(
        input_tokens=6000, output_tokens=600, reviewer_input_tokens=800, reviewer_output_tokens=40
    )  # two reviewed calls, one vote each
    assert result.usage == expected
    (finished,) = observer.of("run_finished")
    assert finished.usage == expected and finished.cost is None  # no price list: unknown
    assert [v["usage"] for e in observer.of("review") for v in e.model_dump(mode="json")["votes"]] == [
        {"input_tokens": 400, "output_tokens": 20, "cache_read_input_tokens": 0, "cache_write_input_tokens": 0}
    ] * 2


async def test_cost_prices_the_agent_and_each_reviewer_model() -> None:
    observer = RecordingObserver()
    prices = FixedPrices({"fake:agent": (2.0, 10.0), "fake:judge": (1.0, 5.0)})
    result = await _agent(_reviewer(), observer, prices).execute(RunRequest(task="t", model_id="fake:agent"))
    agent = (6000 * 2.0 + 600 * 10.0) / 1e6
    reviewers = (800 * 1.0 + 40 * 5.0) / 1e6
    assert result.cost == round(agent + reviewers, 8)
    assert observer.of("run_finished")[0].cost == result.cost


async def test_cost_is_null_when_any_model_price_is_unknown() -> None:
    prices = FixedPrices({"fake:agent": (2.0, 10.0)})
    result = await _agent(_reviewer(), RecordingObserver(), prices).execute(RunRequest(task="t", model_id="fake:agent"))
    assert result.cost is None and "fake:judge" in prices.asked


async def test_reviewers_that_spend_nothing_do_not_make_the_cost_unknown() -> None:
    prices = FixedPrices({"fake:agent": (2.0, 10.0)})
    plugin_reviewer = ScriptedReviewer()  # a plugin reviewer: no model, no tokens
    result = await _agent(plugin_reviewer, RecordingObserver(), prices).execute(
        RunRequest(task="t", model_id="fake:agent")
    )
    assert result.usage.reviewers == Usage() and result.cost == (6000 * 2.0 + 600 * 10.0) / 1e6


async def _sampling_tool(_: dict[str, object]) -> str:
    """A tool whose server asked for a model: the MCP client emits ``mcp_sampling`` in the run."""
    usage = Usage(input_tokens=70, output_tokens=30)
    emit_run_event(McpSampling(server="ev", approved=True, decided_by="config", model="fake:sampler", usage=usage))
    emit_run_event(McpSampling(server="ev", approved=False, decided_by="config", error="refused"))  # spent nothing
    return "sampled"


def _sampling_agent(observer: RecordingObserver, prices: FixedPrices | None = None) -> RunAgent:
    session = ScriptedSession(
        [
            calls(("sample", {}), usage=Usage(input_tokens=1000, output_tokens=100)),
            text("done", usage=Usage(input_tokens=2000, output_tokens=200)),
        ]
    )
    tools = FakeTools()
    tools.add("sample", _sampling_tool)
    return RunAgent(
        gateway=FakeGateway(session),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
        prices=prices,
    )


async def test_mcp_sampling_tokens_count_with_the_agents_priced_by_the_sampling_model() -> None:
    observer = RecordingObserver()
    prices = FixedPrices({"fake:agent": (2.0, 10.0), "fake:sampler": (100.0, 1000.0)})
    result = await _sampling_agent(observer, prices).execute(RunRequest(task="t", model_id="fake:agent"))
    assert result.usage == RunUsage(input_tokens=3070, output_tokens=330)
    (finished,) = observer.of("run_finished")
    assert finished.usage == result.usage
    assert result.cost == round((3000 * 2.0 + 300 * 10.0 + 70 * 100.0 + 30 * 1000.0) / 1e6, 8)
    assert prices.asked.count("fake:sampler") == 1  # the refused request is not priced
    assert len(observer.of("mcp_sampling")) == 2  # and both are still reported


async def test_a_sampling_model_without_a_price_makes_the_cost_unknown() -> None:
    prices = FixedPrices({"fake:agent": (2.0, 10.0)})
    result = await _sampling_agent(RecordingObserver(), prices).execute(RunRequest(task="t", model_id="fake:agent"))
    assert result.cost is None and "fake:sampler" in prices.asked


async def test_mcp_sampling_counts_against_the_token_budget() -> None:
    # The agent alone spends 3300 tokens; with the server's sampling, 3400.
    params = ExecutionParams(max_total_tokens=3350)
    result = await _sampling_agent(RecordingObserver()).execute(
        RunRequest(task="t", model_id="fake:agent", params=params)
    )
    assert result.stop_reason == "max_tokens" and "(3400 used)" in (result.detail or "")
