//! Importing a model from the models pane: the filter names a path, a GGUF file or an
//! `org/name` that no listed model matches, and Enter asks for it. The update only records
//! the request (the state stays pure); the event loop reads the model on a thread (disk, the
//! local cache, or the Hub when allowed) and hands it back to `imported`.

use super::App;
use crate::engine::Model;

impl App {
    /// Enter in the filter: ask for an import where nothing listed matches and the text
    /// names something to import; say why not where it does not.
    pub(super) fn request_import(&mut self) {
        let wanted = self.filter.trim().to_string();
        if wanted.is_empty() || !self.visible_models().is_empty() || self.importing.is_some() {
            return;
        }
        if !crate::catalog::import::looks_importable(&wanted) {
            self.status = Some(crate::tr!("status.import_what", text = wanted));
            return;
        }
        self.import_error = None;
        self.status = Some(crate::tr!("status.importing", text = wanted));
        self.importing = Some(wanted.clone());
        self.import_request = Some(wanted);
    }

    /// An import that the event loop should start now (taken once).
    pub fn take_import_request(&mut self) -> Option<String> {
        self.import_request.take()
    }

    /// The answer to an import: the model heads the list and is planned, or the models pane
    /// gives the error the command line would (the status line says where to look).
    pub fn imported(&mut self, wanted: &str, result: Result<Model, String>) {
        self.importing = None;
        match result {
            Ok(m) => {
                let id = m.id.clone();
                let name = m.name.clone();
                match self.models.iter().position(|x| x.id == id) {
                    Some(_) => {}
                    None => self.add_local_models(vec![m]),
                }
                self.filter.clear();
                self.filtering = false;
                self.select_model(&id);
                self.status = Some(crate::tr!("status.imported", name = name));
            }
            Err(e) => {
                self.status = Some(crate::tr!("status.import_failed", text = wanted));
                self.import_error = Some(crate::present::i18n::error(&e));
            }
        }
    }
}
