from django.contrib import admin

from studio.providers.models import Provider


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "kind", "model", "is_default", "created_at"]
    list_filter = ["kind", "is_default"]
    search_fields = ["name", "model", "owner__username"]
    exclude = ["encrypted_api_key"]
