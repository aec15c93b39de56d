"""List filters of datasets."""

from __future__ import annotations

import django_filters

from studio.datasets.models import Dataset


class DatasetFilter(django_filters.FilterSet):
    # ``?format=`` is DRF's renderer override, hence ``file_format``.
    file_format = django_filters.ChoiceFilter(field_name="format", choices=Dataset.Format.choices)
    name__icontains = django_filters.CharFilter(field_name="name", lookup_expr="icontains")

    class Meta:
        model = Dataset
        fields = ["status", "name", "builtin_name"]
