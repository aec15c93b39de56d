from django.contrib import admin

from studio.deployments.models import BatchJob, Deployment, DeploymentTarget


@admin.register(Deployment)
class DeploymentAdmin(admin.ModelAdmin):
    list_display = ("name", "owner", "target", "updated_at")
    search_fields = ("name",)


@admin.register(DeploymentTarget)
class DeploymentTargetAdmin(admin.ModelAdmin):
    list_display = ("deployment", "reason", "run", "program_version", "created_at")


@admin.register(BatchJob)
class BatchJobAdmin(admin.ModelAdmin):
    list_display = ("id", "deployment", "state", "processed", "total", "created_at")
