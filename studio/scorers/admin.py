from django.contrib import admin

from studio.scorers.models import Scorer, ScorerVersion


class ScorerVersionInline(admin.TabularInline):
    model = ScorerVersion
    fields = ["number", "message", "created_by", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Scorer)
class ScorerAdmin(admin.ModelAdmin):
    list_display = ["name", "kind", "owner", "updated_at"]
    search_fields = ["name", "owner__username"]
    inlines = [ScorerVersionInline]
