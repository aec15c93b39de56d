from django.contrib import admin

from studio.programs.models import Program, ProgramVersion


class ProgramVersionInline(admin.TabularInline):
    model = ProgramVersion
    fields = ["number", "message", "created_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Program)
class ProgramAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "updated_at"]
    search_fields = ["name", "owner__username"]
    inlines = [ProgramVersionInline]
