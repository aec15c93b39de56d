"""The admin site: Django's user pages (add, deactivate, make staff) under Studio's name.

Staff sign in at /admin/ (the app's header links there for them); the user pages are
Django's own ``UserAdmin``. A user added here starts with the bundled model as its
provider like any other (`studio.accounts.signals`).
"""

from django.contrib import admin

from studio.accounts.models import SavedDataModel

admin.site.site_header = "Studio administration"
admin.site.site_title = "Studio admin"
admin.site.index_title = "Users and their work"
admin.site.site_url = "/programs"


@admin.register(SavedDataModel)
class SavedDataModelAdmin(admin.ModelAdmin):
    list_display = ["name", "owner", "class_path", "updated_at"]
    search_fields = ["name", "owner__username"]
