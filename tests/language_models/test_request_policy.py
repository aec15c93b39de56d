"""A model's RequestPolicy: refused destinations fail the call and nothing reaches them.

Stand-ins are scripted servers on 127.0.0.1; a refused case asserts on the stand-in's own
request log that no request arrived. Names resolve through `optimizer_core.testing.dns`.
"""

from __future__ import annotations

import ipaddress

import pytest

from optimizer_core.exceptions import RequestRefused
from optimizer_core.language_models import EmbeddingModel, LanguageModel
from optimizer_core.language_models import request_policy as policies
from optimizer_core.language_models.request_policy import (
    UNRESTRICTED,
    RequestPolicy,
    address_kind,
    parse_allowance,
)
from optimizer_core.testing.dns import resolving
from optimizer_core.testing.scripted_server import ScriptedServer

HELLO = [{"role": "user", "content": "hello"}]
PUBLIC = "93.184.215.14"  # a public address; nothing is ever sent to it here


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.8.9.10",
        "::1",
        "169.254.169.254",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "100.64.0.1",
        "0.0.0.0",
        "::",
        "fc00::1",
        "fd12:3456::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::7f00:1",
        "224.0.0.1",
        "240.0.0.1",
    ],
)
def test_every_address_that_is_not_public_is_refused(address: str) -> None:
    assert address_kind(ipaddress.ip_address(address)) is not None


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
def test_public_addresses_pass(address: str) -> None:
    assert address_kind(ipaddress.ip_address(address)) is None


def test_allow_list_entries_read_as_an_administrator_writes_them() -> None:
    assert parse_allowance("127.0.0.1:11434").port == 11434
    assert parse_allowance("10.0.0.0/8").network == ipaddress.ip_network("10.0.0.0/8")
    assert parse_allowance("[fd00::1]:8000").network == ipaddress.ip_network("fd00::1/128")
    assert parse_allowance("VLLM.lan").name == "vllm.lan"
    assert parse_allowance("*.corp.example").matches_name("gpu1.corp.example", 443)
    for wrong in ["", "http://x", "a b", "host:99999", "[::1]x"]:
        with pytest.raises(ValueError):
            parse_allowance(wrong)


def test_a_port_entry_allows_that_port_only() -> None:
    policy = RequestPolicy(allow=["127.0.0.1:11434"])
    loopback = ipaddress.ip_address("127.0.0.1")
    assert policy.refusal(loopback, 11434) is None
    refusal = policy.refusal(loopback, 6379)
    assert refusal is not None and refusal.entry == "127.0.0.1:6379"


def test_the_servers_own_endpoint_is_refused_even_when_allowed() -> None:
    policy = RequestPolicy(allow=["127.0.0.0/8"], own=["127.0.0.0/8:8000"])
    refusal = policy.refusal(ipaddress.ip_address("127.0.0.1"), 8000)
    assert refusal is not None and "own endpoint" in refusal.reason and refusal.entry == ""


@pytest.fixture
async def stand_in():
    async with ScriptedServer() as server:
        yield server


def _model(base: str, policy: RequestPolicy | None = None, **kwargs) -> LanguageModel:
    model = LanguageModel(
        "openai/stand-in", api_base=base, max_retries=2, backoff_base=0.01, **kwargs
    )
    model.request_policy = policy or RequestPolicy(advice="allow {entry}")
    return model


def _refused(stand_in: ScriptedServer, error: pytest.ExceptionInfo[RequestRefused]) -> None:
    assert "refused by the outgoing-request policy" in str(error.value)
    assert stand_in.stats.chat_requests == stand_in.stats.embedding_requests == 0


pytestmark = pytest.mark.litellm


async def test_loopback_by_address_is_refused_and_nothing_is_sent(stand_in) -> None:
    model = _model(stand_in.base_url)
    with pytest.raises(RequestRefused) as refused:
        await model(HELLO)
    _refused(stand_in, refused)
    assert "loopback" in str(refused.value)
    assert f"allow 127.0.0.1:{stand_in.port}" in str(refused.value)
    assert refused.value.allow_entry == f"127.0.0.1:{stand_in.port}"
    assert model.usage.calls == 1 and model.usage.failures == 1  # refused at once, no retry


async def test_loopback_by_name_is_refused(stand_in) -> None:
    with pytest.raises(RequestRefused) as refused:
        await _model(f"http://localhost:{stand_in.port}/v1")(HELLO)
    _refused(stand_in, refused)
    assert f"localhost:{stand_in.port}" in str(refused.value)


async def test_a_name_that_resolves_to_loopback_is_refused(stand_in) -> None:
    with resolving({"models.test": "127.0.0.1"}), pytest.raises(RequestRefused) as refused:
        await _model(f"http://models.test:{stand_in.port}/v1")(HELLO)
    _refused(stand_in, refused)


async def test_a_name_that_turns_to_loopback_when_connecting_is_refused(stand_in) -> None:
    # DNS rebinding: public when the URL is checked, loopback when the client connects.
    rebinding = resolving({"rebind.test": [PUBLIC, "127.0.0.1"]})
    with rebinding as lookups, pytest.raises(RequestRefused) as refused:
        await _model(f"http://rebind.test:{stand_in.port}/v1")(HELLO)
    _refused(stand_in, refused)
    assert lookups["rebind.test"] >= 2, "the connection resolved the name again"


@pytest.mark.parametrize("base", ["http://[::1]:{port}/v1", "http://[::ffff:127.0.0.1]:{port}/v1"])
async def test_ipv6_loopback_is_refused(stand_in, base: str) -> None:
    with pytest.raises(RequestRefused) as refused:
        await _model(base.format(port=stand_in.port))(HELLO)
    _refused(stand_in, refused)


async def test_the_metadata_address_is_refused_before_any_connection() -> None:
    model = _model("http://169.254.169.254/latest/v1", timeout=2, total_timeout=2)
    with pytest.raises(RequestRefused, match="link-local"):
        await model(HELLO)


async def test_a_redirect_to_loopback_is_not_followed(stand_in) -> None:
    async with ScriptedServer() as public:
        public.redirect_next(f"{stand_in.base_url}/chat/completions", times=10)
        policy = RequestPolicy(allow=[f"127.0.0.1:{public.port}"])  # as if it were public
        with pytest.raises(RequestRefused) as refused:
            await _model(public.base_url, policy)(HELLO)
    _refused(stand_in, refused)
    assert public.stats.chat_requests >= 1, "the allowed server was asked"


async def test_an_allowed_entry_lets_a_private_host_through(stand_in) -> None:
    with resolving({"vllm.lan": "127.0.0.1"}):
        by_name = _model(f"http://vllm.lan:{stand_in.port}/v1", RequestPolicy(allow=["vllm.lan"]))
        assert await by_name(HELLO) == "ok"
    by_port = _model(stand_in.base_url, RequestPolicy(allow=[f"127.0.0.1:{stand_in.port}"]))
    assert await by_port(HELLO) == "ok"
    assert stand_in.stats.chat_requests == 2


async def test_the_servers_own_port_is_refused_even_on_an_allowed_network(stand_in) -> None:
    policy = RequestPolicy(allow=["127.0.0.0/8"], own=[f"127.0.0.1:{stand_in.port}"])
    with pytest.raises(RequestRefused, match="own endpoint") as refused:
        await _model(stand_in.base_url, policy)(HELLO)
    _refused(stand_in, refused)


async def test_embedding_models_obey_the_same_policy(stand_in) -> None:
    model = EmbeddingModel("openai/stand-in", api_base=stand_in.base_url, max_retries=0)
    model.request_policy = RequestPolicy()
    with resolving({"rebind.test": [PUBLIC, "127.0.0.1"]}):
        model.api_base = f"http://rebind.test:{stand_in.port}/v1"
        with pytest.raises(RequestRefused) as refused:
            await model(["a text"])
    _refused(stand_in, refused)


async def test_a_url_that_is_not_http_is_refused() -> None:
    with pytest.raises(RequestRefused, match="not an http"):
        await _model("file:///etc/passwd")(HELLO)


async def test_without_a_policy_the_library_calls_what_it_is_asked(stand_in) -> None:
    plain = LanguageModel("openai/stand-in", api_base=stand_in.base_url)
    assert plain.request_policy is None and await plain(HELLO) == "ok"
    exempt = _model(stand_in.base_url, UNRESTRICTED)
    assert await exempt(HELLO) == "ok"


async def test_the_process_default_applies_to_models_given_none(stand_in) -> None:
    previous = policies.set_default_policy(RequestPolicy())
    try:
        model = LanguageModel("openai/stand-in", api_base=stand_in.base_url, max_retries=0)
        with pytest.raises(RequestRefused):
            await model(HELLO)
        model.request_policy = UNRESTRICTED  # a model's own policy wins over the default
        assert await model(HELLO) == "ok"
    finally:
        policies.set_default_policy(previous)
    assert "request_policy" not in model.get_config()
