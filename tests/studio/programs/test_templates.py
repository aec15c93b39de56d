"""The "new program" dialog's templates: listed, valid, creatable, and each runs."""

from __future__ import annotations

import pytest

import optimizer_core as oc
from optimizer_core.datasets import support_tickets
from studio.programs import templates
from studio.programs.documents import validate_document
from studio.programs.services import run_once

pytestmark = pytest.mark.django_db

INPUTS = {
    "single_generator": {"query": "What is the capital of Peru?"},
    "draft_then_answer": {"query": "What is the capital of Peru?"},
    "route_then_answer": {"message": "I never got the refund for my kettle."},
    "answer_then_critique": {"query": "What is the capital of Peru?"},
}


def test_the_catalogue_lists_four_shapes_each_ready_to_create(api) -> None:
    response = api.get("/api/programs/templates/")
    assert response.status_code == 200, response.content
    entries = response.json()
    assert [e["name"] for e in entries] == list(INPUTS)
    assert {e["dataset"] for e in entries} == {None, "support_tickets"}
    for entry in entries:
        assert validate_document(entry["document"]) == []
        assert set(entry["layout"]["nodes"]) == {
            m["name"] for m in entry["document"]["program"]["modules"]
        }
        created = api.post(
            "/api/programs/",
            {"name": entry["label"], "document": entry["document"], "layout": entry["layout"]},
            format="json",
        )
        assert created.status_code == 201, created.content


@pytest.mark.parametrize("name", list(INPUTS))
def test_each_template_runs_with_its_shape(name: str) -> None:
    entry = next(e for e in templates.catalogue() if e["name"] == name)
    lm = oc.FakeLanguageModel()  # schema-valid answers
    result = run_once(document=entry["document"], language_model=lm, inputs=INPUTS[name])
    assert result["output"] is not None
    modules = [step["module"] for step in result["trace"]]
    if name == "draft_then_answer":
        answerer = result["trace"][-1]
        assert answerer["module"] == "answerer" and set(answerer["inputs"]) == {"query", "draft"}
    if name == "route_then_answer":
        router = result["trace"][0]
        assert router["module"] == "router" and router["taken"] in (["account"], ["order"])
        assert sum(step["skipped"] for step in result["trace"]) == 1
        assert set(result["output"]) == {"topic"}
    if name == "answer_then_critique":
        assert modules[-2:] == ["critic_critic", "critic_reviser"]
        assert set(result["output"]) == {"answer", "critique", "reward"}


def test_a_template_names_the_bundled_model_and_a_reward_on_its_answer() -> None:
    for template in templates.TEMPLATES:
        document = template.document()
        models = {
            entry["module"]["config"]["language_model"]["config"]["model"]
            for entry in document["program"]["modules"]
            if "language_model" in entry["module"]["config"]
        }
        assert models == {templates.BUNDLED_MODEL}
        reward = document["compile_config"]["reward"]["config"]
        assert reward["in_mask"] in (["answer"], ["topic"])


def test_the_router_names_each_topic_of_its_data_set_beside_the_label_it_routes_to() -> None:
    # A small model reads the label off the question: each of support_tickets' four
    # topics is named in the part of the question that ends with its label.
    document = templates.get("route_then_answer").document()
    router = document["program"]["modules"][1]["module"]["config"]
    assert router["labels"] == ["account", "order"]
    question = router["question"]
    parts = question.split("(label account)")
    assert len(parts) == 2 and parts[1].count("(label order)") == 1
    routes = {"password": parts[0], "address": parts[0], "refund": parts[1], "delivery": parts[1]}
    assert set(routes) == set(support_tickets.TOPICS)
    for topic, part in routes.items():
        assert topic in part, (topic, question)
