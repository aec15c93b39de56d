"""Settings shared by every deployment; each value comes from the environment.

`local` (the embedded default: SQLite, a broker and channel layer that need no
server), `test` and `production` (PostgreSQL, Redis) only change defaults.
"""

from pathlib import Path

import environ
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parents[2]
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

VAR_DIR = Path(env("STUDIO_VAR_DIR", default=str(BASE_DIR / "var")))

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "channels",
    "studio.accounts",
    "studio.programs",
    "studio.datasets",
    "studio.providers",
    "studio.runs",
    "studio.realtime",
    "studio.deployments",
    "studio.evaluations",
    "studio.scorers",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "studio.urls"
# CSRF refusals answer JSON on /api/ paths (the sign-in view checks CSRF itself).
CSRF_FAILURE_VIEW = "studio.common.errors.csrf_failure"
ASGI_APPLICATION = "studio.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'studio.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded mode writes from the web server and the worker at once: WAL lets
    # readers proceed, IMMEDIATE takes the write lock at BEGIN (no upgrade deadlock),
    # and the timeout waits for the other writer instead of failing.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"init_command": "PRAGMA journal_mode=WAL;", "transaction_mode": "IMMEDIATE", "timeout": 20}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
# The browser app (frontend/dist, built by `make frontend`): WhiteNoise serves its
# files at the site root; any other page path gets its index.html (studio.views).
FRONTEND_DIST = Path(env("STUDIO_FRONTEND_DIST", default=str(BASE_DIR / "frontend" / "dist")))
WHITENOISE_ROOT = FRONTEND_DIST if FRONTEND_DIST.is_dir() else None
WHITENOISE_IMMUTABLE_FILE_TEST = r"^/assets/.+-[0-9A-Za-z_-]{8,}\.\w+$"
MEDIA_ROOT = Path(env("STUDIO_MEDIA_ROOT", default=str(VAR_DIR / "media")))
# Each user's LM response cache (a directory per user; runs with fit_config.cache reuse it).
STUDIO_LM_CACHE_DIR = Path(env("STUDIO_LM_CACHE_DIR", default=str(VAR_DIR / "lm_cache")))

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "django_filters.rest_framework.DjangoFilterBackend",
        "rest_framework.filters.OrderingFilter",
        "rest_framework.filters.SearchFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    # JSON bodies nested deeper than studio.common.jsondepth.MAX_DEPTH answer 400.
    "DEFAULT_PARSER_CLASSES": [
        "studio.common.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "studio.common.errors.exception_handler",
    # Sign-in and token creation (studio.accounts.api.throttling): every attempt per
    # client address, and failures per address and username; sign-up per address.
    "DEFAULT_THROTTLE_RATES": {
        "sign_in": env("STUDIO_SIGN_IN_RATE", default="60/min"),
        "sign_in_failures": env("STUDIO_SIGN_IN_FAILURE_RATE", default="10/min"),
        "sign_up": env("STUDIO_SIGN_UP_RATE", default="30/hour"),
    },
    # The client address is REMOTE_ADDR unless this many proxies add X-Forwarded-For
    # (trusting the header from anyone would let a client pick its own address).
    "NUM_PROXIES": env.int("STUDIO_NUM_PROXIES", default=0),
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Studio API",
    "DESCRIPTION": "Design LM programs, upload datasets, train and compare runs.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    # Every operation lists the 400/404/409/413 answers it gives (studio.common.error_responses).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "studio.common.error_responses.declare_error_responses",
    ],
    # Several models have a `state`: each set keeps a stable name in the generated client
    # (an evaluation's states are a batch job's, so it shares BatchStateEnum), and so do
    # the splits a batch job or an evaluation reads (all, train, test).
    "ENUM_NAME_OVERRIDES": {
        "StateEnum": "studio.runs.models.Run.State",
        "BatchStateEnum": "studio.deployments.models.BatchJob.State",
        "RowSplitEnum": "studio.datasets.versions.ROW_SPLITS",
        "SplitEnum": "studio.deployments.batch.SPLITS",
        "UsageDaySourceEnum": "studio.deployments.models.DeploymentUsage.Source",
        "PredictionVerdictEnum": "studio.deployments.models.PredictionLog.Verdict",
        "PairedVerdictEnum": ["significant gain", "significant loss", "no detectable change"],
        "ScorerKindEnum": "studio.scorers.models.Scorer.Kind",
        "KindEnum": "studio.providers.models.Provider.Kind",
    },
}

# Accounts. Sign-up (POST /api/auth/signup/) is closed unless a deployment opens it (the
# embedded default does: studio.settings.local). A new account starts with the bundled
# model as its default provider when it is installed (studio.accounts.signals). The
# sign-in page names the demo account and its default password only where
# STUDIO_SHOW_DEMO_ACCOUNT is set, which only the embedded default does.
STUDIO_OPEN_REGISTRATION = env.bool("STUDIO_OPEN_REGISTRATION", default=False)
STUDIO_STARTER_PROVIDER = env.bool("STUDIO_STARTER_PROVIDER", default=True)
STUDIO_SHOW_DEMO_ACCOUNT = False

# A running run whose worker sent no heartbeat for this long is re-queued (worker died).
STUDIO_RUN_STALE_AFTER_S = env.float("STUDIO_RUN_STALE_AFTER_S", default=120.0)
STUDIO_RUN_HEARTBEAT_S = env.float("STUDIO_RUN_HEARTBEAT_S", default=10.0)

# Uploads: streamed to disk, refused above this size.
STUDIO_UPLOAD_MAX_BYTES = env.int("STUDIO_UPLOAD_MAX_BYTES", default=200 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# Outgoing requests (studio.providers.outgoing; docs/security.md, "Outgoing requests"):
# every model a user configures (providers, judges, OMEGA's models, deployments) may
# reach public addresses only. STUDIO_ALLOWED_OUTGOING lists what the administrator opens
# anyway, comma-separated: a host and port ("127.0.0.1:11434" for Ollama on this machine,
# "vllm.lan:8000"), a host name ("vllm.lan", "*.corp.example"), an address or a network
# ("10.0.0.0/8", "[fd00::1]:8000"). This studio's own endpoints (STUDIO_PORT on this
# machine, the ALLOWED_HOSTS names) stay refused whatever it lists.
STUDIO_ALLOWED_OUTGOING = env.list("STUDIO_ALLOWED_OUTGOING", default=[])
STUDIO_PORT = env.int("STUDIO_PORT", default=8000)
# Provider keys (studio.providers.keys): a provider saved without a key is called without
# one, never with the server's. At start, provider credentials (*_API_KEY, *_ORGANIZATION,
# AWS_*...) leave the environment; STUDIO_GRANTED_KEYS ("openai=OPENAI_API_KEY,...") gives
# a variable's value to the providers of that kind that have no key and no api_base of
# their own (the provider's official endpoint only).
STUDIO_GRANTED_KEYS = env.list("STUDIO_GRANTED_KEYS", default=[])

# API keys of providers are encrypted at rest with this key (Fernet, urlsafe base64).
STUDIO_ENCRYPTION_KEY = env("STUDIO_ENCRYPTION_KEY", default="")

# Celery: a broker that needs no server by default (SQLite through SQLAlchemy).
CELERY_BROKER_URL = env(
    "CELERY_BROKER_URL", default=f"sqla+sqlite:///{VAR_DIR / 'celery-broker.sqlite3'}"
)
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Two queues, so short work (dataset validation, try, the sweep) never waits behind a
# training run that may hold its worker for hours: runs.run_training goes to "training",
# every other task to "short". Deployments run a worker per queue (-Q training / -Q short);
# a worker started without -Q consumes both (the queues are declared here).
CELERY_TASK_DEFAULT_QUEUE = "short"
CELERY_TASK_QUEUES = (
    Queue("short", routing_key="short"),
    Queue("training", routing_key="training"),
)
# A batch prediction (deployments.run_batch) may run as long as training, and so may an
# evaluation (evaluations.run_evaluation: two passes over a split): same queue.
CELERY_TASK_ROUTES = {
    "runs.run_training": {"queue": "training"},
    "deployments.run_batch": {"queue": "training"},
    "evaluations.run_evaluation": {"queue": "training"},
}
# Runs whose worker died (no heartbeat for STUDIO_RUN_STALE_AFTER_S) are re-queued and
# resume from their last checkpoint; workers also sweep once when they start.
CELERY_BEAT_SCHEDULE = {
    "sweep-stale-runs": {
        "task": "runs.sweep_stale_runs",
        "schedule": env.float("STUDIO_SWEEP_EVERY_S", default=60.0),
    },
    # Logged predictions past their deployment's retention (log_retention_days) go.
    "sweep-prediction-logs": {
        "task": "deployments.sweep_prediction_logs",
        "schedule": env.float("STUDIO_PREDICTION_LOG_SWEEP_EVERY_S", default=3600.0),
    },
}

# Channel layer: Redis when CHANNEL_REDIS_URL is set, else the embedded layer
# (see studio.realtime) that works across processes without a server.
CHANNEL_REDIS_URL = env("CHANNEL_REDIS_URL", default="")
if CHANNEL_REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {
                # redis-py 8 reads with a 5 s socket timeout by default, which cuts the
                # layer's 5 s blocking BZPOPMIN and kills idle sockets (close 1011).
                "hosts": [{"address": CHANNEL_REDIS_URL, "socket_timeout": 30}],
            },
        }
    }
else:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "studio.realtime.layers.RunEventPollingLayer",
            "CONFIG": {"poll_interval": env.float("STUDIO_EVENT_POLL_S", default=0.05)},
        }
    }

STUDIO_LOG_LEVEL = env("STUDIO_LOG_LEVEL", default="INFO")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # Every record loses provider keys (the ones in use, and sk-... / Bearer ... shapes)
    # from its message and its whole traceback before it is written; a Celery worker's
    # own handlers get the same filter (studio.providers.redaction).
    "filters": {"redact_secrets": {"()": "studio.providers.redaction.RedactSecretsFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact_secrets"]}},
    "root": {"handlers": ["console"], "level": STUDIO_LOG_LEVEL},
    "loggers": {
        # Django's defaults give "django" handlers of its own (console when DEBUG,
        # mail_admins) that would skip the filter: send its records to the root's.
        "django": {"handlers": [], "level": STUDIO_LOG_LEVEL, "propagate": True},
        # litellm writes its records through a handler of its own as well: a filter on
        # the logger rewrites each record before any handler sees it.
        "LiteLLM": {"filters": ["redact_secrets"]},
    },
}
