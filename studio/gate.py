"""The regression gate: fail a CI job when a candidate program scores significantly worse.

``python -m studio.gate`` (or ``python gate.py``: this file alone) asks a studio
to evaluate a candidate (a program version or a deployment) against a baseline
on a dataset version (``POST /api/evaluations/``), both at temperature 0, waits
for the evaluation and prints its paired verdict, for example::

    significant loss: -0.20 (95% CI -0.30 to -0.10), n=40, p=0.001
    significant loss at n=40: ...

Exit status: 0 when there is no significant regression (a significant gain, or
no detectable change), 1 on a significant regression (a significant loss), 2
when the gate could not decide (the studio refused or could not be reached, the
evaluation failed, it did not finish within ``--timeout``); the reason is printed
on stderr, the API's own message for a refused request.

The token comes from ``STUDIO_TOKEN`` (or ``--token-file``), never from the
command line, and is never printed. Only the standard library is used, so a CI
job needs nothing but Python: see docs/ci.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any, TextIO

PASS, REGRESSION, UNDECIDED = 0, 1, 2
"""The exit statuses."""
REQUEST_TIMEOUT_S = 60.0
"""The longest one HTTP request may take."""
TERMINAL = ("succeeded", "failed")


class GateError(Exception):
    """The gate cannot decide; the message says why (exit status 2)."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m studio.gate",
        description="Evaluate a candidate against a baseline on a studio; exit 1 on a "
        "significant regression, 0 otherwise, 2 when it could not decide.",
    )
    parser.add_argument(
        "--url",
        default=os.environ.get("STUDIO_URL", ""),
        help="the studio's address, e.g. https://studio.example.com (default: $STUDIO_URL)",
    )
    parser.add_argument(
        "--token-file",
        help="a file holding the API token (default: the STUDIO_TOKEN environment variable)",
    )
    for side in ("candidate", "baseline"):
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument(f"--{side}-version", type=int, metavar="ID", help="a program version")
        group.add_argument(f"--{side}-deployment", type=int, metavar="ID", help="a deployment")
        parser.add_argument(
            f"--{side}-provider",
            type=int,
            metavar="ID",
            help="the provider its program calls (default: your default language provider "
            "for a version, the deployment's own for a deployment)",
        )
    parser.add_argument("--dataset", type=int, required=True, metavar="ID")
    parser.add_argument(
        "--dataset-version", type=int, metavar="N", help="its version number (default: latest)"
    )
    parser.add_argument(
        "--split", default="test", choices=["test", "train", "all"], help="default: test"
    )
    parser.add_argument("--reward", metavar="NAME", help="a reward's name (default: exact_match)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=1800.0,
        metavar="S",
        help="seconds to wait for the verdict (default: 1800)",
    )
    parser.add_argument(
        "--poll-interval", type=float, default=5.0, metavar="S", help="default: 5 seconds"
    )
    return parser


def _token(args: argparse.Namespace) -> str:
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as handle:
                token = handle.read().strip()
        except OSError as error:
            raise GateError(f"cannot read the token file: {error.strerror}") from None
    else:
        token = os.environ.get("STUDIO_TOKEN", "").strip()
    if not token:
        raise GateError("no API token: set STUDIO_TOKEN or pass --token-file")
    return token


def _base_url(url: str) -> str:
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise GateError(f"--url must be an http(s) address, got {url!r}")
    return url.rstrip("/") + "/"


def _refusal(body: bytes) -> str:
    """The API's message of a refused request: ``detail``, else each field's messages."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace").strip()[:500] or "(no message)"
    if not isinstance(data, dict):
        return str(data)
    parts = []
    for field, messages in data.items():
        text = "; ".join(map(str, messages)) if isinstance(messages, list) else str(messages)
        parts.append(text if field in ("detail", "") else f"{field}: {text}")
    return "; ".join(parts) or "(no message)"


def _request(url: str, token: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url,
        data=data,
        method="POST" if body is not None else "GET",
        headers={
            "Authorization": f"Token {token}",
            "Accept": "application/json",
            **({"Content-Type": "application/json"} if body is not None else {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_S) as response:
            answer: dict[str, Any] = json.loads(response.read())
            return answer
    except urllib.error.HTTPError as error:
        message = _refusal(error.read())
        raise GateError(f"the studio answered HTTP {error.code}: {message}") from None
    except urllib.error.URLError as error:
        raise GateError(f"cannot reach the studio at {url}: {error.reason}") from None
    except (TimeoutError, OSError) as error:
        raise GateError(f"cannot reach the studio at {url}: {error}") from None
    except ValueError:
        raise GateError(f"the studio's answer from {url} is not JSON") from None


def _body(args: argparse.Namespace) -> dict[str, Any]:
    body: dict[str, Any] = {"dataset": args.dataset, "split": args.split}
    for side in ("candidate", "baseline"):
        for kind in ("version", "deployment", "provider"):
            value = getattr(args, f"{side}_{kind}")
            if value is not None:
                body[f"{side}_{kind}"] = value
    if args.dataset_version is not None:
        body["dataset_version"] = args.dataset_version
    if args.reward:
        body["reward"] = {"name": args.reward, "params": {}}
    return body


def describe(result: dict[str, Any]) -> str:
    """The verdict's line: ``significant loss: -0.20 (95% CI -0.30 to -0.10), n=40, p=0.001``."""
    return (
        f"{result['verdict']}: {result['difference']:+.2f} "
        f"(95% CI {result['ci_low']:+.2f} to {result['ci_high']:+.2f}), "
        f"n={result['n']}, p={result['p_value']:.3g}"
    )


def run(args: argparse.Namespace, out: TextIO) -> int:
    """Start the evaluation, wait for it and print its verdict; the exit status."""
    token = _token(args)
    base = _base_url(args.url)
    evaluation = _request(urllib.parse.urljoin(base, "api/evaluations/"), token, _body(args))
    url = urllib.parse.urljoin(base, str(evaluation.get("url") or ""))
    print(f"evaluation {evaluation.get('id')}: {evaluation.get('state')}", file=out, flush=True)
    deadline = time.monotonic() + args.timeout
    while evaluation.get("state") not in TERMINAL:
        if time.monotonic() >= deadline:
            raise GateError(
                f"evaluation {evaluation.get('id')} is still {evaluation.get('state')} after "
                f"{args.timeout:g} s (--timeout); follow it at {url}"
            )
        time.sleep(max(0.0, min(args.poll_interval, deadline - time.monotonic())))
        evaluation = _request(url, token)
    if evaluation["state"] == "failed":
        raise GateError(f"evaluation {evaluation.get('id')} failed: {evaluation.get('error')}")
    result = evaluation["result"]
    print(describe(result), file=out)
    print(result["sentence"], file=out)
    print(
        f"baseline {result['mean_baseline']:.3f}, candidate {result['mean_candidate']:.3f} "
        f"(mean reward)",
        file=out,
    )
    return REGRESSION if result["regression"] else PASS


def main(
    argv: Sequence[str] | None = None, *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """The command line; returns the exit status (0 pass, 1 regression, 2 undecided)."""
    out = out or sys.stdout
    err = err or sys.stderr
    args = _parser().parse_args(argv)
    try:
        return run(args, out)
    except GateError as error:
        print(f"gate: {error}", file=err)
        return UNDECIDED
    except KeyboardInterrupt:
        print("gate: interrupted", file=err)
        return UNDECIDED


if __name__ == "__main__":
    sys.exit(main())
