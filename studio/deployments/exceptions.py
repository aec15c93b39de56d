"""The errors of deployment services (`studio.common.exceptions` draws the hierarchy).

::

    DomainError                 400
     ├── DeploymentError        400  a deploy / switch / batch request that cannot be honoured
     ├── InputInvalid           400  a prediction input that does not fit the program
     ├── TooLarge               413
     │    └── InputTooLarge     413  an input over the deployment's max_input_bytes
     ├── Conflict               409
     │    └── NotServable       409  no provider to call, nothing to roll back to
     └── PredictionFailed       502  the provider failed the prediction
"""

from __future__ import annotations

from studio.common.exceptions import Conflict, DomainError, TooLarge


class DeploymentError(DomainError):
    """A deploy, switch or batch request that cannot be honoured; ``path`` names the field."""


class InputInvalid(DomainError):
    """Prediction inputs that do not fit the program's input DataModels (one error per field)."""


class InputTooLarge(TooLarge):
    """Prediction inputs larger than the deployment takes (one error per input; nothing called)."""


class NotServable(Conflict):
    """The deployment cannot serve now (its run's provider is gone, no default provider...)."""


class PredictionFailed(DomainError):
    """Every prediction of the request failed in the program's language model."""

    status = 502
