// Shared by the arena's pages: JSON requests with the sign-in cookie, and a sign-in form.
"use strict";
async function api(path, options = {}) {
  const response = await fetch(path, {credentials: "same-origin", headers: {"Content-Type": "application/json"}, ...options});
  const body = response.headers.get("content-type")?.includes("json") ? await response.json() : null;
  if (!response.ok) {
    const error = new Error(body?.detail ? (typeof body.detail === "string" ? body.detail : JSON.stringify(body.detail)) : response.statusText);
    error.status = response.status;
    throw error;
  }
  return body;
}

function showSignIn(onSignedIn) {
  const section = document.getElementById("signin");
  section.classList.remove("hidden");
  document.getElementById("token").focus();
  document.getElementById("signin-form").onsubmit = async (event) => {
    event.preventDefault();
    const field = document.getElementById("token");
    try {
      await api("/api/login", {method: "POST", body: JSON.stringify({token: field.value.trim()})});
      field.value = "";
      section.classList.add("hidden");
      onSignedIn();
    } catch (error) {
      field.setCustomValidity(error.message);
      field.reportValidity();
      field.oninput = () => field.setCustomValidity("");
    }
  };
}

async function whoAmI() {
  const me = await api("/api/me");
  document.getElementById("who").textContent = `signed in as ${me.name} (${me.role})`;
  return me;
}
