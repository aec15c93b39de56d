from django.contrib import admin

from studio.datasets.models import Dataset


@admin.register(Dataset)
class DatasetAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "format", "status", "row_count", "error_count", "created_at"]
    list_filter = ["format", "status"]
    search_fields = ["name", "owner__username"]
    readonly_fields = ["sha256", "size_bytes", "errors", "validated_at"]
