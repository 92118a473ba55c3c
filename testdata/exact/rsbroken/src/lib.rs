use gauge::Meter;

pub struct Reading(pub u32);

impl Reading {
    pub fn double(&self) -> Reading {
        Reading(self.0 * 2)
    }
}

pub fn measure(meter: &Meter) -> Reading {
    let first = Reading(1);
    first.double()
}
