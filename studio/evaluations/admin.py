from django.contrib import admin

from studio.evaluations.models import Evaluation


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "state", "dataset", "split", "created_at")
    list_filter = ("state",)
